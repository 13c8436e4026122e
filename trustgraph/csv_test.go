package trustgraph

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
)

func TestReadEdges(t *testing.T) {
	e, err := ParseEdges([]byte("from,to,rating,time\r\n1,2,4,1289241911.72836\r\n\n 2 , 3 , -1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(e) != 2 || e[1] != (Edge{"2", "3", -1}) {
		t.Errorf("%+v", e)
	}
	for _, tc := range []struct {
		in   string
		line int
		err  error
	}{
		{"a,b,1\nc,d,NaN\n", 2, ErrBadWeight},
		{"a,b,1\nc,d,+Inf\n", 2, ErrBadWeight},
		{"a,b,1e999\n", 1, ErrBadWeight},
		{"a,b,1,NaN\n", 1, ErrBadWeight},
		{"h,h,w\nx,y,z\n", 2, ErrBadLine},
		{"a,b\n", 1, ErrBadLine},
		{"a,b,1,2,3\n", 1, ErrBadLine},
		{"\"a\",b,1\n", 1, ErrBadLine},
		{"a,b,1\na,b,0x10\n", 2, ErrBadLine},
		{",b,1\n", 1, ErrBadID},
		{"a,b,1\n" + strings.Repeat("x", MaxLineBytes+1) + "\n", 2, ErrTooLarge},
	} {
		_, err := ParseEdges([]byte(tc.in))
		var le *LineError
		if !errors.As(err, &le) || le.Line != tc.line || !errors.Is(err, tc.err) {
			t.Errorf("%q: %v; want line %d, %v", tc.in, err, tc.line, tc.err)
		}
	}
}

func TestReadSNAP(t *testing.T) {
	for _, name := range []string{"soc-sign-bitcoinotc.csv", "soc-sign-bitcoinalpha.csv"} {
		f, err := os.Open(extdata.Graph(t, name))
		if err != nil {
			t.Fatal(err)
		}
		edges, err := ReadEdges(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGraph(edges)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][2]int{"soc-sign-bitcoinotc.csv": {5881, 35592}, "soc-sign-bitcoinalpha.csv": {3783, 24186}}[name]
		if g.Len() != want[0] || len(edges) != want[1] {
			t.Errorf("%s: %d nodes, %d edges; want %v", name, g.Len(), len(edges), want)
		}
	}
}

func FuzzReadEdges(f *testing.F) {
	f.Add([]byte("from,to,rating,time\n6,2,4,1289241911.72836\n6,5,2,1289241941.53378\n"))
	f.Add([]byte("a,b,1\nb,a,-3\na,a,2\n"))
	f.Add([]byte("a,b,NaN\n"))
	f.Add([]byte("\r\n\r\nx,y,1e308\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		edges, err := ParseEdges(b)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		g, err := NewGraph(edges)
		if err != nil {
			t.Fatalf("parsed edges refused: %v", err)
		}
		if len(edges) == 0 {
			return
		}
		r, err := Propagate(g, []string{edges[0].Source}, PropagateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, s := range r.Scores {
			if !(s.Score > 0) {
				t.Fatalf("score %v", s)
			}
			sum += s.Score
		}
		if r.Undistributed < -1e-9 || sum > 1+1e-9 {
			t.Fatalf("mass %v, undistributed %v", sum, r.Undistributed)
		}
	})
}
