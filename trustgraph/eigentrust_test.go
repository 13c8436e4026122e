package trustgraph

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
)

// TestEigenTrustKnownAnswers checks Global against the exact fixed points
// in ../shared/testdata/stats/eigentrust.json. The distrust-discount case is
// about go-eigentrust's distrust extension, which this package does not
// implement; it is reported as skipped.
func TestEigenTrustKnownAnswers(t *testing.T) {
	b, err := os.ReadFile(extdata.Path(t, "stats", "eigentrust.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name       string             `json:"name"`
			N          int                `json:"n"`
			Peers      []string           `json:"peers"`
			LocalTrust [][3]any           `json:"local_trust"`
			PreTrust   map[string]float64 `json:"pre_trust"`
			Alpha      float64            `json:"alpha"`
			Expect     json.RawMessage    `json:"expect"`
			Tol        float64            `json:"tol"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.LocalTrust == nil {
				t.Skip("distrust discounting is not part of this model")
			}
			var edges []Edge
			peers := c.Peers
			for i := 0; i < c.N; i++ {
				peers = append(peers, fmt.Sprint(i))
			}
			for _, p := range peers { // every peer is a node, even without edges
				edges = append(edges, Edge{p, p, 0})
			}
			for _, lt := range c.LocalTrust {
				edges = append(edges, Edge{fmt.Sprint(lt[0]), fmt.Sprint(lt[1]), lt[2].(float64)})
			}
			g, err := NewGraph(edges)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Global(g, GlobalOptions{Alpha: c.Alpha, PreTrust: c.PreTrust})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]float64{}
			if err := json.Unmarshal(c.Expect, &want); err != nil {
				var list []float64
				if err := json.Unmarshal(c.Expect, &list); err != nil {
					t.Fatal(err)
				}
				for i, x := range list {
					want[fmt.Sprint(i)] = x
				}
			}
			for id, w := range want {
				if got := r.Of(id); math.Abs(got-w) > c.Tol {
					t.Errorf("%s: got %.12f, want %.12f ± %g", id, got, w, c.Tol)
				}
			}
			if math.Abs(r.Undistributed) > 1e-12 {
				t.Errorf("undistributed %g", r.Undistributed)
			}
			ran++
		})
	}
	if ran < 4 {
		t.Errorf("%d known-answer cases ran; want 4", ran)
	}
}

// TestEigenTrustExactRational checks the readme case against its exact
// rational fixed point 28/129, 62/129, 39/129 to 1e-12.
func TestEigenTrustExactRational(t *testing.T) {
	g, err := NewGraph([]Edge{{"ek", "sd", 100}, {"vm", "sd", 100}, {"ek", "vm", 75}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Global(g, GlobalOptions{Alpha: 0.5, PreTrust: map[string]float64{"ek": 50, "vm": 100}, Epsilon: 1e-15})
	if err != nil {
		t.Fatal(err)
	}
	for id, w := range map[string]float64{"ek": 28.0 / 129, "vm": 62.0 / 129, "sd": 39.0 / 129} {
		if got := r.Of(id); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: got %.15f, want %.15f", id, got, w)
		}
	}
}
