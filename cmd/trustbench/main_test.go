package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
)

// TestRunOTC runs a small experiment end to end on Bitcoin OTC.
func TestRunOTC(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-edges", extdata.Graph(t, "soc-sign-bitcoinotc.csv"),
		"-labels", extdata.Graph(t, "otc_gt.csv"), "-sybils", "20", "-attacks", "1,10", "-readers", "3"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"136 benign, 180 fraudulent", "AUC benign vs fraudulent"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-edges", "x"}, &out, &errb); code != 2 {
		t.Errorf("exit %d", code)
	}
	if code := run([]string{"-edges", "x", "-labels", "y", "-attacks", "a"}, &out, &errb); code != 2 {
		t.Errorf("exit %d", code)
	}
}
