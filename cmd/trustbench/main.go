// Command trustbench runs the Sybil experiment of SPEC.md §15.2 on a trust
// graph with REV2 labels and prints its figures: the reader-local trust a
// Sybil region captures through 1, 10 and 100 attack edges against the
// analytic bound, the global EigenTrust mass of the same region, and the AUC
// of separating fraudulent from benign users by reader-local and by global
// trust, with the time each part took.
//
//	trustbench -edges soc-sign-bitcoinotc.csv -labels otc_gt.csv
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/remnant/passportkit/trustgraph"
	"github.com/remnant/passportkit/trustgraph/experiment"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trustbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	edgesPath := fs.String("edges", "", "edge file (source,target,weight[,time])")
	labelsPath := fs.String("labels", "", "label file (id,+1 benign or id,-1 fraudulent)")
	sybils := fs.Int("sybils", 1000, "keys in the Sybil region")
	attacks := fs.String("attacks", "1,10,100", "numbers of attack edges, comma-separated")
	readers := fs.Int("readers", 20, "readers the AUC is averaged over")
	trustSet := fs.Int("trust-set", 10, "benign users in the fixed reader's trust set")
	seed := fs.Uint64("seed", 1, "seed for drawing the readers")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *edgesPath == "" || *labelsPath == "" {
		fmt.Fprintln(stderr, "trustbench: -edges and -labels are required")
		return 2
	}
	var ks []int
	for _, s := range strings.Split(*attacks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 0 {
			fmt.Fprintf(stderr, "trustbench: -attacks: %q is not a count\n", s)
			return 2
		}
		ks = append(ks, k)
	}
	edges, err := readWith(*edgesPath, trustgraph.ReadEdges)
	if err != nil {
		fmt.Fprintf(stderr, "trustbench: %s: %v\n", *edgesPath, err)
		return 2
	}
	labels, err := readWith(*labelsPath, experiment.ReadLabels)
	if err != nil {
		fmt.Fprintf(stderr, "trustbench: %s: %v\n", *labelsPath, err)
		return 2
	}
	start := time.Now()
	rep, err := experiment.Run(edges, labels, experiment.Config{
		TrustSetSize: *trustSet, SybilKeys: *sybils, AttackEdges: ks, Readers: *readers, Seed: *seed,
	})
	if err != nil {
		fmt.Fprintf(stderr, "trustbench: %v\n", err)
		return 1
	}
	took := time.Since(start)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "graph: %d nodes, %d positive edges; labels in the graph: %d benign, %d fraudulent\n", rep.Nodes, rep.Edges, rep.Benign, rep.Fraud)
	fmt.Fprintf(stdout, "reader's trust set (%d benign users with the most positive out-edges): %s\n", len(rep.TrustSet), strings.Join(rep.TrustSet, ","))
	fmt.Fprintf(stdout, "Sybil region: %d keys, each praising every other (weight 10); d = 0.85, D = 3; global a = 0.15, uniform pre-trust\n\n", *sybils)
	fmt.Fprintln(stdout, "attack edges  captured (reader-local)  bound d/(1-d)·Σπ(u)P(u→S)  captured/bound  global EigenTrust mass")
	for _, a := range rep.Attacks {
		ratio := "-"
		if a.Bound > 0 {
			ratio = fmt.Sprintf("%.3f", a.Captured/a.Bound)
		}
		fmt.Fprintf(stdout, "%12d  %23.6g  %26.6g  %14s  %22.6g\n", a.Edges, a.Captured, a.Bound, ratio, a.GlobalCaptured)
	}
	fmt.Fprintf(stdout, "\nAUC benign vs fraudulent: reader-local %.4f (mean over %d benign readers, each trusting itself), global EigenTrust %.4f\n", rep.LocalAUC, len(rep.Readers), rep.GlobalAUC)
	fmt.Fprintf(stdout, "took %s\n", took.Round(time.Millisecond))
	return 0
}

func readWith[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}
