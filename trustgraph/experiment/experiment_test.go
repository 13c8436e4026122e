package experiment

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
	"github.com/remnant/passportkit/trustgraph"
)

func TestAUC(t *testing.T) {
	res := trustgraph.Result{Scores: []trustgraph.Score{{ID: "b1", Score: .3}, {ID: "f1", Score: .2}, {ID: "b2", Score: .2}}}
	labels := map[string]int{"b1": 1, "b2": 1, "f1": -1, "f2": -1}
	// Pairs (benign, fraud): b1>f1, b1>f2, b2=f1 (½), b2>f2: 3.5/4.
	if got := auc(res, labels, ""); math.Abs(got-3.5/4) > 1e-15 {
		t.Errorf("auc %v, want %v", got, 3.5/4)
	}
	if got := auc(res, labels, "b1"); math.Abs(got-1.5/2) > 1e-15 {
		t.Errorf("auc without the reader %v, want %v", got, .75)
	}
}

// TestSybilOTC runs a small experiment on Bitcoin OTC: without attack edges
// the region captures nothing, and with them never more than the bound.
func TestSybilOTC(t *testing.T) {
	f, err := os.Open(extdata.Graph(t, "soc-sign-bitcoinotc.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	edges, err := trustgraph.ReadEdges(f)
	if err != nil {
		t.Fatal(err)
	}
	labels := readLabels(t, extdata.Graph(t, "otc_gt.csv"))
	rep, err := Run(edges, labels, Config{SybilKeys: 50, AttackEdges: []int{0, 1, 10}, Readers: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Attacks[0].Captured != 0 || rep.Attacks[0].Bound != 0 {
		t.Errorf("no attack edge: captured %v, bound %v", rep.Attacks[0].Captured, rep.Attacks[0].Bound)
	}
	for _, a := range rep.Attacks[1:] {
		if a.Captured <= 0 || a.Captured > a.Bound*(1+1e-9) {
			t.Errorf("%d edges: captured %v, bound %v", a.Edges, a.Captured, a.Bound)
		}
	}
	if rep.Benign != 136 || rep.Fraud != 180 {
		t.Errorf("%d benign, %d fraudulent labelled users in the graph; want 136 and 180", rep.Benign, rep.Fraud)
	}
	if rep.LocalAUC <= 0.5 || rep.GlobalAUC <= 0.5 {
		t.Errorf("AUC local %v global %v: no better than chance", rep.LocalAUC, rep.GlobalAUC)
	}
}

func readLabels(t *testing.T, path string) map[string]int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels, err := ReadLabels(f)
	if err != nil {
		t.Fatal(err)
	}
	return labels
}

func TestReadLabels(t *testing.T) {
	l, err := ReadLabels(strings.NewReader("1,+1\n\n2,-1\r\n3,1\n"))
	if err != nil || len(l) != 3 || l["2"] != -1 || l["3"] != 1 {
		t.Fatalf("%v %v", l, err)
	}
	for _, bad := range []string{"1,0\n", "1,+1\n1,-1\n", "x\n", ",1\n"} {
		var le *trustgraph.LineError
		if _, err := ReadLabels(strings.NewReader(bad)); !errors.As(err, &le) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzReadLabels(f *testing.F) {
	f.Add([]byte("215,+1\n132,+1\n7,-1\n"))
	f.Add([]byte("a,1\r\n\nb,-1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ReadLabels(strings.NewReader(string(b)))
		if err != nil {
			var le *trustgraph.LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for id, v := range l {
			if id == "" || (v != 1 && v != -1) {
				t.Fatalf("%q: %d", id, v)
			}
		}
	})
}
