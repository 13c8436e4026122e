package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestVerifyPassportToolPrintsWhatVerifyPrints: on each engine, for the
// bundle get_agent_passport of `passport-issuer serve` gives, its
// verify_passport answers byte for byte what the built `passport verify
// --json` prints with the trust file /.well-known serves, at the same
// time: for the bundle, a tampered copy and another subject.
func TestVerifyPassportToolPrintsWhatVerifyPrints(t *testing.T) {
	bin := buildVerifier(t)
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dir := t.TempDir()
			dsn := storetest.URL(t, engine)
			cmd(t, dsn, "migrate")
			subject := recordWorld(t, dsn)
			base := serveIssuer(t, dsn, filepath.Join(dir, "keys"))
			var caller struct {
				PublicID string `json:"publicId"`
				APIKey   string `json:"apiKey"`
			}
			if err := json.Unmarshal([]byte(cmd(t, dsn, "agents", "create", "--name", "Caller", "--json")), &caller); err != nil {
				t.Fatal(err)
			}
			_, _, trust := get(t, base+"/.well-known/passport-trust.json", "")
			trustPath := filepath.Join(dir, "trust.json")
			if err := os.WriteFile(trustPath, trust, 0o644); err != nil {
				t.Fatal(err)
			}

			cs := mcpwiretest.Session(t, base+"/mcp", caller.APIKey)
			call := func(name string, args map[string]any) string {
				t.Helper()
				res := mcpwiretest.CallTool(t, cs, name, args)
				if text := mcpwiretest.Text(t, res); !res.IsError {
					return text
				}
				t.Fatalf("%s: %s", name, mcpwiretest.Text(t, res))
				return ""
			}

			bundle := call("get_agent_passport", map[string]any{"publicId": subject})
			tampered := strings.Replace(bundle, `"trustLevel":"`, `"trustLevel":"x`, 1)
			if tampered == bundle {
				t.Fatal("nothing to tamper with")
			}
			at := time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
			for _, c := range []struct {
				name, bundle, subject string
				exit                  int
			}{
				{"valid", bundle, string(subject), 0},
				{"tampered", tampered, string(subject), 1},
				{"another subject", bundle, caller.PublicID, 1},
			} {
				path := filepath.Join(dir, c.name+".json")
				if err := os.WriteFile(path, []byte(c.bundle), 0o644); err != nil {
					t.Fatal(err)
				}
				var stdout bytes.Buffer
				verify := exec.Command(bin, "verify", "--json", "--trust", trustPath, "--subject", c.subject, "--at", at, path)
				verify.Stdout = &stdout
				err := verify.Run()
				if ee, ok := err.(*exec.ExitError); (ok && ee.ExitCode() != c.exit) || (!ok && err != nil) || (err == nil && c.exit != 0) {
					t.Fatalf("%s: passport verify: %v", c.name, err)
				}
				got := call("verify_passport", map[string]any{"bundle": c.bundle, "subject": c.subject, "at": at})
				if want := strings.TrimSuffix(stdout.String(), "\n"); got != want {
					t.Fatalf("%s: verify_passport answered\n%s\npassport verify --json printed\n%s", c.name, got, want)
				}
			}
		})
	}
}

// TestAgentFindsFetchesVerifiesAssesses: on the demo world, an agent
// connected to `passport-issuer serve` over MCP through the SDK's client
// finds an agent by its skill evidence, fetches its signed passport,
// verifies it against the issuer's own trust file and assesses it for the
// skill: every step agrees with the one before it, on each engine.
func TestAgentFindsFetchesVerifiesAssesses(t *testing.T) {
	const skill = "PostgreSQL indexing"
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dsn, dir := storetest.URL(t, engine), t.TempDir()
			keys := filepath.Join(dir, "keys")
			cmd(t, dsn, "demo", "--no-serve", "--out", filepath.Join(dir, "demo"), "--keys", keys)
			base := serveIssuer(t, dsn, keys, "--index-poll", "50ms")
			var caller struct {
				APIKey string `json:"apiKey"`
			}
			if err := json.Unmarshal([]byte(cmd(t, dsn, "agents", "create", "--name", "Caller", "--json")), &caller); err != nil {
				t.Fatal(err)
			}
			cs := mcpwiretest.Session(t, base+"/mcp", caller.APIKey)
			call := func(name string, args map[string]any, out any) string {
				t.Helper()
				res := mcpwiretest.CallTool(t, cs, name, args)
				text := mcpwiretest.Text(t, res)
				if res.IsError {
					t.Fatalf("%s: %s", name, text)
				}
				if out != nil {
					if err := json.Unmarshal([]byte(text), out); err != nil {
						t.Fatalf("%s: %v\n%s", name, err, text)
					}
				}
				return text
			}

			// Find, with the skill as a person types it; the indexer enters
			// the subject within a sweep.
			var found struct {
				Results []struct {
					ID    string       `json:"id"`
					Skill skillFigures `json:"skill"`
					Why   string       `json:"why"`
				} `json:"results"`
				Truncated bool `json:"truncated"`
			}
			for deadline := time.Now().Add(20 * time.Second); len(found.Results) == 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("find_agents never listed the subject")
				}
				call("find_agents", map[string]any{"skill": "postgresql  INDEXING"}, &found)
			}
			top := found.Results[0]
			// The demo world's main agent, independently evidenced: an
			// estimate, not N/A.
			if top.Skill.Skill != skill || top.Skill.EvidenceLevel != "MODERATE" || top.Skill.Estimate == nil || top.Why == "" || found.Truncated {
				t.Fatalf("find_agents: %+v", found)
			}

			// Fetch, and verify against the issuer's own trust file.
			bundle := call("get_agent_passport", map[string]any{"publicId": top.ID}, nil)
			var verdict struct {
				Verified bool   `json:"verified"`
				Subject  string `json:"subject"`
				Passport struct {
					SkillPassports []skillFigures `json:"skillPassports"`
				} `json:"passport"`
			}
			call("verify_passport", map[string]any{"bundle": bundle, "subject": top.ID}, &verdict)
			if !verdict.Verified || verdict.Subject != top.ID {
				t.Fatalf("verify_passport: %+v", verdict)
			}
			i := slices.IndexFunc(verdict.Passport.SkillPassports, func(f skillFigures) bool { return f.Skill == skill })
			if i < 0 || !reflect.DeepEqual(verdict.Passport.SkillPassports[i], top.Skill) {
				t.Fatalf("the verified passport's %s is not what find_agents ranked: %+v, found %+v", skill, verdict.Passport.SkillPassports, top.Skill)
			}

			// Assess for the skill, in no context: the same figures.
			var cmp struct {
				Agents []struct {
					Agent  string         `json:"agent"`
					Skills []skillFigures `json:"skills"`
				} `json:"agents"`
			}
			call("assess_trust", map[string]any{"agents": []string{top.ID}, "skills": []string{skill}}, &cmp)
			if len(cmp.Agents) != 1 || cmp.Agents[0].Agent != top.ID || len(cmp.Agents[0].Skills) != 1 || !reflect.DeepEqual(cmp.Agents[0].Skills[0], top.Skill) {
				t.Fatalf("assess_trust: %+v, found %+v", cmp, top.Skill)
			}
		})
	}
}

// skillFigures are the figures of a skill passport that ranking rests on,
// as every answer spells them.
type skillFigures struct {
	Skill         string `json:"skill"`
	EvidenceLevel string `json:"evidenceLevel"`
	Estimate      *struct {
		Lower, Midpoint, Upper float64
	} `json:"estimate"`
}
