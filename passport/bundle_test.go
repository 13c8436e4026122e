package passport

import "testing"

// TestSnapshotUnverified reads a bundle's snapshot and passport without
// verifying them, and refuses a snapshot that is not one as
// payload_malformed.
func TestSnapshotUnverified(t *testing.T) {
	for _, tt := range []struct {
		name, snapshot string
		reason         Reason
		hash, subject  string
	}{
		{"a snapshot", `{"passport":{"subject":{"id":"agt_x"}},"passportHash":"sha256:ab"}`, "", "sha256:ab", "agt_x"},
		{"not an object", `[1]`, ReasonPayloadMalformed, "", ""},
		{"a passport that is not one", `{"passport":"agt_x","passportHash":"sha256:ab"}`, ReasonPayloadMalformed, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &Bundle{Credential: "x", Snapshot: []byte(tt.snapshot)}
			snap, p, err := b.SnapshotUnverified()
			if ReasonOf(err) != tt.reason || snap.PassportHash != tt.hash || p.Subject.ID != tt.subject {
				t.Fatalf("%q: %+v %+v %v", tt.snapshot, snap, p, err)
			}
		})
	}
}
