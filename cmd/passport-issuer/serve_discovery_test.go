package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
)

// TestServeKeepsTheDiscoveryIndex: serve's indexer enters an agent's
// declared skill within a sweep, and an agent made private leaves find_agents
// at once; cursors are sealed with the database's key, so a cursor one
// process returned is accepted by the next, on the route and by the MCP
// tool find_agents alike.
func TestServeKeepsTheDiscoveryIndex(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "issuer.db")
	s := startServe(t, "--db", db, "serve", "--index-poll", "50ms", "--keys", filepath.Join(tmp, "keys"))
	var key string
	for _, name := range []string{"First", "Second"} {
		var a struct {
			PublicID string `json:"publicId"`
			APIKey   string `json:"apiKey"`
		}
		json.Unmarshal([]byte(cmd(t, db, "agents", "create", "--name", name, "--json")), &a)
		key = a.APIKey
		req, _ := http.NewRequest("PUT", s.base+"/api/agents/me/capabilities", strings.NewReader(`{"capabilities":["Kubernetes operators"]}`))
		req.Header.Set("Authorization", "Bearer "+a.APIKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("declare: %v %v", res, err)
		}
		res.Body.Close()
	}

	type page struct {
		Results []struct {
			ID  string `json:"id"`
			Why string `json:"why"`
		} `json:"results"`
		NextCursor string `json:"nextCursor"`
	}
	find := func(base, query string) page {
		t.Helper()
		res, err := http.Get(base + "/api/public/agents?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p page
		if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != 200 {
			t.Fatalf("find %s: %d %v", query, res.StatusCode, err)
		}
		return p
	}
	skill := "skill=" + url.QueryEscape("kubernetes operators")
	var p page
	for deadline := time.Now().Add(20 * time.Second); len(p.Results) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the indexer did not enter the declarations: %+v\n%s", p, s.logs.String())
		}
		p = find(s.base, skill)
	}
	first := find(s.base, skill+"&limit=1")
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// Another process on the same database accepts the cursor.
	s = startServe(t, "--db", db, "serve", "--keys", filepath.Join(tmp, "keys"))
	next := find(s.base, skill+"&limit=1&cursor="+url.QueryEscape(first.NextCursor))
	if len(next.Results) != 1 || next.Results[0].ID == first.Results[0].ID {
		t.Fatalf("after a restart the cursor gives %+v", next)
	}
	// The tool answers the page the route answers (its freshness aside:
	// the indexer may sweep between the two).
	res := mcpwiretest.CallTool(t, mcpwiretest.Session(t, s.base+"/mcp", key), "find_agents",
		map[string]any{"skill": "Kubernetes operators", "limit": 1, "cursor": first.NextCursor})
	var viaTool page
	if err := json.Unmarshal([]byte(mcpwiretest.Text(t, res)), &viaTool); err != nil || res.IsError || !reflect.DeepEqual(viaTool, next) {
		t.Fatalf("find_agents after a restart: %s, the route %+v", mcpwiretest.Text(t, res), next)
	}
	private := first.Results[0].ID
	if out := cmd(t, db, "agents", "set-visibility", private, "--visibility", "private"); !strings.Contains(out, "is private") {
		t.Fatalf("set-visibility: %s", out)
	}
	if p := find(s.base, skill); len(p.Results) != 1 || p.Results[0].ID == private {
		t.Fatalf("a private agent is still found: %+v", p)
	}
}

// TestServeIndexShareRefusals: a share of the indexer's time that is none,
// negative or more than all of it is refused before anything starts.
func TestServeIndexShareRefusals(t *testing.T) {
	for _, share := range []string{"0", "-0.5", "1.5", "NaN"} {
		code, _, errs := runCmd(serveArgs(t, "--index-share="+share)...)
		if code == 0 || !strings.Contains(errs, "--index-share must be above 0 and at most 1") {
			t.Errorf("--index-share %s: exit %d: %s", share, code, errs)
		}
	}
}
