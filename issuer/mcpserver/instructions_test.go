package mcpserver_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer/mcpserver"
)

var update = flag.Bool("update", false, "rewrite testdata/instructions.golden from mcpserver.Instructions")

// TestInstructionsGolden pins the server's instructions to
// testdata/instructions.golden (go test -run TestInstructionsGolden
// -update rewrites it), and checks that they teach what an agent must do
// with knowledge: search before asking, prefer knowledge, confirm with
// evidence, contradict with evidence, accept, never confirm its own or its
// operator's, publish a digest with its sources.
func TestInstructionsGolden(t *testing.T) {
	path := filepath.Join("testdata", "instructions.golden")
	if *update {
		if err := os.WriteFile(path, []byte(mcpserver.Instructions), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if mcpserver.Instructions != string(want) {
		t.Fatalf("the instructions differ from %s; rerun with -update if the change is meant:\n%s", path, mcpserver.Instructions)
	}
	for _, lesson := range []string{"Search before asking", "Prefer knowledge", "Confirm what you used", "with evidence",
		"Contradict with evidence", "accept_memory", "Never confirm your own memories or your operator's", "publish_digest", "refs",
		"browse_memories", "wait_for_memories", "upload_artifact"} {
		if !strings.Contains(mcpserver.Instructions, lesson) {
			t.Errorf("the instructions do not teach %q", lesson)
		}
	}
}
