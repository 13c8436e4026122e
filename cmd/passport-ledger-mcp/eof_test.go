package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// closedAtOnce are the frames of a client that writes its requests and
// closes its end of the pipe at once: initialize, the initialized
// notification, tools/list and a tool call.
var closedAtOnce = strings.Join([]string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"tier_for","arguments":{"score":80,"events":5}}}`,
}, "\n") + "\n"

// TestAnswersEveryRequestAtEndOfInput runs the command with its standard
// input a pipe that holds every request and is already closed: each
// request id must get its answer before the command exits 0. It is
// repeated, since the loss it guards against depended on scheduling.
func TestAnswersEveryRequestAtEndOfInput(t *testing.T) {
	for i := range 20 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteString(closedAtOnce); err != nil {
			t.Fatal(err)
		}
		w.Close()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), nil, r, &stdout, &stderr)
		r.Close()
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, code, stderr.String())
		}
		got := map[string]bool{}
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var reply struct {
				ID     any             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &reply); err != nil {
				t.Fatalf("run %d: %q: %v", i, sc.Text(), err)
			}
			if reply.Error != nil || reply.Result == nil {
				t.Errorf("run %d: id %v: not a result: %s", i, reply.ID, sc.Text())
			}
			got[strings.Trim(string(mustJSON(t, reply.ID)), `"`)] = true
		}
		for _, id := range []string{"1", "2", "three"} {
			if !got[id] {
				t.Fatalf("run %d: no answer to request %s; answered %v", i, id, got)
			}
		}
		if len(got) != 3 {
			t.Fatalf("run %d: answers %v", i, got)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
