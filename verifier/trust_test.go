package verifier_test

import (
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// TestParseTrustTimes pins SPEC.md §1 and §10 for key windows: a time has
// exactly one form, YYYY-MM-DDTHH:MM:SSZ, and names a real instant.
func TestParseTrustTimes(t *testing.T) {
	trustJSON, _, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	const good = `"notBefore":"2025-01-01T00:00:00Z"`
	if !strings.Contains(string(trustJSON), good) {
		t.Fatalf("the vectors' trust file has no %s", good)
	}
	if _, err := verifier.ParseTrust(trustJSON); err != nil {
		t.Fatalf("the vectors' trust file: %v", err)
	}
	for _, bad := range []string{
		"2025-01-01T02:00:00+02:00", // an offset
		"2025-01-01T00:00:00.5Z",    // a fraction
		"2025-01-01T00:00:00.000Z",  // a zero fraction
		"2025-01-01 00:00:00Z",      // a space
		"2025-01-01t00:00:00z",      // lower case
		"2016-12-31T23:59:60Z",      // a leap second
		"2025-02-29T00:00:00Z",      // an impossible date
		"2025-01-01T24:00:00Z",      // hour 24
		"2025-01-01T00:00:00",       // no zone
	} {
		in := strings.Replace(string(trustJSON), good, `"notBefore":"`+bad+`"`, 1)
		if _, err := verifier.ParseTrust([]byte(in)); err == nil {
			t.Errorf("ParseTrust accepted notBefore %q", bad)
		}
	}
}

// TestKeyWindowInclusive pins that both ends of a key's window belong to it
// (SPEC.md §10).
func TestKeyWindowInclusive(t *testing.T) {
	nb := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	na := time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
	k := verifier.TrustedKey{NotBefore: nb, NotAfter: na}
	for _, tt := range []struct {
		at   time.Time
		want bool
	}{
		{nb, true}, {na, true}, {nb.Add(-time.Second), false}, {na.Add(time.Second), false},
	} {
		if got := k.ValidAt(tt.at); got != tt.want {
			t.Errorf("ValidAt(%v) = %v, want %v", tt.at, got, tt.want)
		}
	}
}
