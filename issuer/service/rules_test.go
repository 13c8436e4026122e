package service

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// The rules of the use cases over a store, as pure tables: what a store
// read goes in, the plan of writes (or the refusal) comes out. The
// behavioural suite (issuer/store, on both engines) checks that the
// writes land; these check the decisions, one rule per row.

// zeros is a source of randomness that reads zeros: plans are then
// deterministic.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

var ruleNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// subjects returns the agents whose revisions revs replace, in order.
func subjects(revs []RevisionWrite) []int64 {
	var out []int64
	for _, r := range revs {
		if !strings.HasPrefix(r.Token, "rev_") {
			panic("not a revision token: " + r.Token)
		}
		out = append(out, r.Agent)
	}
	return out
}

// wantRefusal fails unless err carries code; "" wants no error.
func wantRefusal(t *testing.T, err error, code issuer.Code) {
	t.Helper()
	if got := issuer.ErrorCode(err); got != code {
		t.Fatalf("got %v (%q), want %q", err, got, code)
	}
}

func TestStaleSubjects(t *testing.T) {
	const self = 5
	rel := func(author int64, kind RelationKind, link issuer.LinkKind) Relation {
		return Relation{Author: author, Kind: kind, Link: link}
	}
	tests := []struct {
		name      string
		related   []Relation
		ownership bool
		want      []int64
	}{
		{"none: self alone", nil, false, []int64{5}},
		{"a memory linking to ours, of any kind", []Relation{
			rel(9, RelatedLinkingTo, issuer.LinkDerivedFrom), rel(7, RelatedLinkingTo, issuer.LinkContradicts),
		}, false, []int64{5, 7, 9}},
		{"ours contradicting theirs", []Relation{rel(3, RelatedLinkedFrom, issuer.LinkContradicts)}, false, []int64{3, 5}},
		{"ours deriving from, extending or superseding theirs: not theirs", []Relation{
			rel(3, RelatedLinkedFrom, issuer.LinkDerivedFrom), rel(4, RelatedLinkedFrom, issuer.LinkExtends),
			rel(6, RelatedLinkedFrom, issuer.LinkSupersedes),
		}, false, []int64{5}},
		{"acts, without a change of ownership", []Relation{rel(8, RelatedActedOn, "")}, false, []int64{5}},
		{"acts, with a change of ownership", []Relation{rel(8, RelatedActedOn, "")}, true, []int64{5, 8}},
		{"each once, self included", []Relation{
			rel(8, RelatedActedOn, ""), rel(8, RelatedLinkingTo, issuer.LinkExtends), rel(5, RelatedLinkingTo, issuer.LinkExtends),
		}, true, []int64{5, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := staleSubjects(self, tt.related, tt.ownership); !slices.Equal(got, tt.want) {
				t.Fatalf("stale %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlanPublication(t *testing.T) {
	const author, other = 1, 2
	p := issuer.Principal{Key: author, AgentID: "agt_author", Status: issuer.AgentActive}
	target := func(key, by int64, vis issuer.MemoryVisibility) LinkTarget {
		return LinkTarget{MemoryRecord: MemoryRecord{Key: key, Author: by, AuthorStatus: issuer.AgentActive, Status: issuer.MemoryActive, Visibility: vis}}
	}
	quarantined, suspended := target(13, other, issuer.MemoryPublic), target(14, other, issuer.MemoryPublic)
	quarantined.Status, suspended.AuthorStatus = issuer.MemoryQuarantined, issuer.AgentSuspended
	versioned := target(15, other, issuer.MemoryPublic)
	versioned.VersionRoot = 4
	st := &PublicationState{Targets: map[issuer.MemoryID]LinkTarget{
		"mem_public": target(10, other, issuer.MemoryPublic), "mem_theirs_private": target(11, other, issuer.MemoryPrivate),
		"mem_own_private": target(12, author, issuer.MemoryPrivate), "mem_quarantined": quarantined,
		"mem_suspended": suspended, "mem_versioned": versioned, "mem_own": target(16, author, issuer.MemoryPublic),
	}}
	link := func(kind issuer.LinkKind, id issuer.MemoryID) issuer.Link { return issuer.Link{Kind: kind, Target: id} }
	tests := []struct {
		name      string
		vis       issuer.MemoryVisibility
		links     []issuer.Link
		refused   issuer.Code
		stale     []int64
		root      int64
		published int
	}{
		{name: "no links: the author's own revision, one more published", stale: []int64{author}, published: 1},
		{name: "private: not counted", vis: issuer.MemoryPrivate, stale: []int64{author}},
		{name: "deriving from another's memory: its author's passport unchanged",
			links: []issuer.Link{link(issuer.LinkDerivedFrom, "mem_public")}, stale: []int64{author}, published: 1},
		{name: "a contradiction is evidence about the contradicted author",
			links: []issuer.Link{link(issuer.LinkContradicts, "mem_public"), link(issuer.LinkContradicts, "mem_versioned")},
			stale: []int64{author, other}, published: 1},
		{name: "contradicting one's own memory", links: []issuer.Link{link(issuer.LinkContradicts, "mem_own")},
			stale: []int64{author}, published: 1},
		{name: "one's own private memory as a research ancestor",
			links: []issuer.Link{link(issuer.LinkDerivedFrom, "mem_own_private")}, stale: []int64{author}, published: 1},
		{name: "one's own private memory contradicted", links: []issuer.Link{link(issuer.LinkContradicts, "mem_own_private")},
			refused: issuer.CodeNotFound},
		{name: "another's private memory", links: []issuer.Link{link(issuer.LinkExtends, "mem_theirs_private")},
			refused: issuer.CodeNotFound},
		{name: "a quarantined memory", links: []issuer.Link{link(issuer.LinkDerivedFrom, "mem_quarantined")}, refused: issuer.CodeNotFound},
		{name: "a suspended author's memory", links: []issuer.Link{link(issuer.LinkDerivedFrom, "mem_suspended")}, refused: issuer.CodeNotFound},
		{name: "an unknown memory", links: []issuer.Link{link(issuer.LinkDerivedFrom, "mem_unknown")}, refused: issuer.CodeNotFound},
		{name: "superseding a first version: it is the root",
			links: []issuer.Link{link(issuer.LinkSupersedes, "mem_public"), link(issuer.LinkSupersedes, "mem_versioned")},
			stale: []int64{author}, root: 10, published: 1},
		{name: "superseding a later version: its root",
			links: []issuer.Link{link(issuer.LinkSupersedes, "mem_versioned"), link(issuer.LinkSupersedes, "mem_public")},
			stale: []int64{author}, root: 4, published: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pub := issuer.Publication{Category: "SQL", Domain: "sql", Title: "t", Content: "abc", Visibility: tt.vis, Links: tt.links}
			plan, err := planPublication(st, p, pub, "mem_new", ruleNow, zeros{})
			wantRefusal(t, err, tt.refused)
			if err != nil {
				if plan != nil {
					t.Fatal("a refusal came with a plan")
				}
				return
			}
			if got := subjects(plan.Revisions); !slices.Equal(got, tt.stale) {
				t.Errorf("stale %v, want %v", got, tt.stale)
			}
			if plan.VersionRoot != tt.root {
				t.Errorf("version root %d, want %d", plan.VersionRoot, tt.root)
			}
			var published int
			for _, a := range plan.Activity {
				if a.Agent != author || a.Counter != CountPublished {
					t.Errorf("activity %+v", a)
				}
				published += a.N
			}
			if published != tt.published {
				t.Errorf("published %+d, want %+d", published, tt.published)
			}
			if len(plan.Links) != len(tt.links) {
				t.Errorf("%d links written, want %d", len(plan.Links), len(tt.links))
			}
			wantVis := cmp.Or(tt.vis, issuer.MemoryPublic)
			if a := plan.Audit; a.Action != "memory.published" || a.Actor != "agt_author" || a.Subject != "mem_new" ||
				a.Detail["visibility"] != wantVis || a.Detail["domain"] != "sql" || plan.Memory.Visibility != wantVis {
				t.Errorf("audit %+v, visibility %q", a, plan.Memory.Visibility)
			}
			// The SHA-256 of "abc".
			if plan.ContentHash != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" || plan.Now != ruleNow {
				t.Errorf("content hash %s at %v", plan.ContentHash, plan.Now)
			}
		})
	}
}

func TestPlanModeration(t *testing.T) {
	const author = 4
	related := []Relation{
		{Author: 7, Kind: RelatedLinkingTo, Link: issuer.LinkExtends},
		{Author: 8, Kind: RelatedLinkedFrom, Link: issuer.LinkContradicts},
		{Author: 9, Kind: RelatedLinkedFrom, Link: issuer.LinkDerivedFrom},
	}
	mem := func(status issuer.MemoryStatus, vis issuer.MemoryVisibility) *ModerationState {
		return &ModerationState{Memory: &MemoryRecord{Key: 40, Author: author, AuthorStatus: issuer.AgentActive, Status: status, Visibility: vis}, Related: related}
	}
	tests := []struct {
		name      string
		st        *ModerationState
		to        issuer.MemoryStatus
		refused   issuer.Code
		write     bool
		published int
	}{
		{name: "unknown", st: &ModerationState{}, to: issuer.MemoryRemoved, refused: issuer.CodeNotFound},
		{name: "unchanged: nothing written", st: mem(issuer.MemoryQuarantined, issuer.MemoryPublic), to: issuer.MemoryQuarantined},
		{name: "a public memory leaves active", st: mem(issuer.MemoryActive, issuer.MemoryPublic), to: issuer.MemoryQuarantined, write: true, published: -1},
		{name: "a public memory returns to active", st: mem(issuer.MemoryRemoved, issuer.MemoryPublic), to: issuer.MemoryActive, write: true, published: 1},
		{name: "between hidden states: not counted", st: mem(issuer.MemoryQuarantined, issuer.MemoryPublic), to: issuer.MemoryRemoved, write: true},
		{name: "a private memory: never counted", st: mem(issuer.MemoryActive, issuer.MemoryPrivate), to: issuer.MemoryRemoved, write: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := issuer.Moderation{Status: tt.to, Reason: "review"}
			plan, prev, err := planModeration(tt.st, "agt_moderator", "mem_m", m, ruleNow, zeros{})
			wantRefusal(t, err, tt.refused)
			if err != nil {
				return
			}
			if prev != tt.st.Memory.Status {
				t.Errorf("previous status %q, want %q", prev, tt.st.Memory.Status)
			}
			if (plan != nil) != tt.write {
				t.Fatalf("plan %+v, want one: %v", plan, tt.write)
			}
			if plan == nil {
				return
			}
			if got := subjects(plan.Revisions); !slices.Equal(got, []int64{author, 7, 8}) {
				t.Errorf("stale %v, want the author, the author linking to it and the author it contradicts", got)
			}
			var published int
			for _, a := range plan.Activity {
				published += a.N
			}
			if published != tt.published || plan.Memory != 40 || plan.Status != tt.to {
				t.Errorf("published %+d (want %+d), memory %d to %q", published, tt.published, plan.Memory, plan.Status)
			}
			if a := plan.Audit; a.Actor != "agt_moderator" || a.Action != "memory.moderated" || a.Subject != "mem_m" ||
				a.Detail["from"] != prev || a.Detail["to"] != tt.to || a.Detail["reason"] != "review" {
				t.Errorf("audit %+v", a)
			}
		})
	}
}

func TestPlanAgentChanges(t *testing.T) {
	const agent, op, otherOp = 5, 20, 21
	related := []Relation{
		{Author: 6, Kind: RelatedLinkingTo, Link: issuer.LinkDerivedFrom},
		{Author: 7, Kind: RelatedActedOn},
	}
	scopes := "publish search"
	known := func(owner int64) *AgentState {
		return &AgentState{Agent: &AgentRecord{Key: agent, Status: issuer.AgentActive, Visibility: issuer.VisibilityPublic},
			Operator: op, Owner: owner, Related: related, LiveKeys: 2, LatestScopes: &scopes}
	}
	unknown := &AgentState{Operator: op}
	const id = issuer.AgentID("agt_a")
	key := issuer.APIKey("key")
	tests := []struct {
		name    string
		plan    func(st *AgentState) (*AgentPlan, error)
		st      *AgentState
		refused issuer.Code
		stale   []int64 // nil: no plan
		action  string
		detail  map[string]any
	}{
		{name: "suspending: the agent and the authors linking to its memories",
			plan: func(st *AgentState) (*AgentPlan, error) {
				return planStatus(st, id, issuer.AgentSuspended, ruleNow, zeros{})
			}, st: known(0), stale: []int64{5, 6}, action: "agent.status_changed",
			detail: map[string]any{"from": issuer.AgentActive, "to": issuer.AgentSuspended}},
		{name: "the same status: nothing",
			plan: func(st *AgentState) (*AgentPlan, error) {
				return planStatus(st, id, issuer.AgentActive, ruleNow, zeros{})
			},
			st: known(0)},
		{name: "the status of an unknown agent",
			plan: func(st *AgentState) (*AgentPlan, error) {
				return planStatus(st, id, issuer.AgentSuspended, ruleNow, zeros{})
			}, st: unknown, refused: issuer.CodeNotFound},
		{name: "a new owner: the authors it acted on too",
			plan: func(st *AgentState) (*AgentPlan, error) { return planOwner(st, "op_x", id, ruleNow, zeros{}) },
			st:   known(otherOp), stale: []int64{5, 6, 7}, action: "agent.owner_bound",
			detail: map[string]any{"operator": issuer.OperatorID("op_x")}},
		{name: "the same owner: nothing",
			plan: func(st *AgentState) (*AgentPlan, error) { return planOwner(st, "op_x", id, ruleNow, zeros{}) },
			st:   known(op)},
		{name: "an unknown operator, before an unknown agent",
			plan: func(st *AgentState) (*AgentPlan, error) { return planOwner(st, "op_x", id, ruleNow, zeros{}) },
			st:   &AgentState{}, refused: issuer.CodeNotFound},
		{name: "visibility: the agent alone",
			plan: func(st *AgentState) (*AgentPlan, error) {
				return planVisibility(st, id, issuer.VisibilityPrivate, ruleNow, zeros{})
			}, st: known(0), stale: []int64{5}, action: "agent.visibility_changed",
			detail: map[string]any{"from": issuer.VisibilityPublic, "to": issuer.VisibilityPrivate}},
		{name: "the same visibility: nothing",
			plan: func(st *AgentState) (*AgentPlan, error) {
				return planVisibility(st, id, issuer.VisibilityPublic, ruleNow, zeros{})
			}, st: known(0)},
		{name: "a key with the scopes of the last one: no passport changes",
			plan: func(st *AgentState) (*AgentPlan, error) { return planKeyRotation(st, id, key, nil, ruleNow) },
			st:   known(0), stale: []int64{}, action: "agent.key_rotated", detail: map[string]any{"revoked": 2, "scopes": scopes}},
		{name: "a key with scopes named",
			plan: func(st *AgentState) (*AgentPlan, error) {
				return planKeyRotation(st, id, key, []issuer.Scope{issuer.ScopeAdmin}, ruleNow)
			}, st: &AgentState{Agent: &AgentRecord{Key: agent}}, stale: []int64{}, action: "agent.key_rotated",
			detail: map[string]any{"revoked": 0, "scopes": "admin"}},
		{name: "no scopes to take",
			plan: func(st *AgentState) (*AgentPlan, error) { return planKeyRotation(st, id, key, nil, ruleNow) },
			st:   &AgentState{Agent: &AgentRecord{Key: agent}}, refused: issuer.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := tt.plan(tt.st)
			wantRefusal(t, err, tt.refused)
			if (plan != nil) != (tt.stale != nil) {
				t.Fatalf("plan %+v, want one: %v", plan, tt.stale != nil)
			}
			if plan == nil {
				return
			}
			if got := subjects(plan.Revisions); !slices.Equal(got, tt.stale) {
				t.Errorf("stale %v, want %v", got, tt.stale)
			}
			a := plan.Audit
			if plan.Agent != agent || plan.Now != ruleNow || a.Actor != ActorAdmin || a.Action != tt.action || a.Subject != string(id) {
				t.Errorf("plan of agent %d at %v, audit %+v", plan.Agent, plan.Now, a)
			}
			for k, v := range tt.detail {
				if a.Detail[k] != v {
					t.Errorf("audit detail %s = %v, want %v", k, a.Detail[k], v)
				}
			}
			if tt.action == "agent.key_rotated" && (plan.APIKey == nil || plan.APIKey.Hash != key.Hash() || plan.APIKey.Scopes != tt.detail["scopes"]) {
				t.Errorf("key write %+v", plan.APIKey)
			}
		})
	}
}

func TestNewAgent(t *testing.T) {
	created := CreatedAgent{ID: "agt_new", Key: "key"}
	tests := []struct {
		name     string
		in       NewAgent
		st       *AgentState
		refused  issuer.Code
		operator int64
		scopes   string
		vis      issuer.Visibility
	}{
		{name: "defaults", in: NewAgent{Name: "  Ada  "}, st: &AgentState{}, scopes: "publish search feedback", vis: issuer.VisibilityPublic},
		{name: "owned", in: NewAgent{Name: "Ada", Operator: "op_x", Scopes: []issuer.Scope{issuer.ScopeSearch}, Visibility: issuer.VisibilityUnlisted},
			st: &AgentState{Operator: 20}, operator: 20, scopes: "search", vis: issuer.VisibilityUnlisted},
		{name: "an unknown operator", in: NewAgent{Name: "Ada", Operator: "op_x"}, st: &AgentState{}, refused: issuer.CodeNotFound},
		{name: "no name", in: NewAgent{Name: " "}, refused: issuer.CodeInvalid},
		{name: "an unknown visibility", in: NewAgent{Name: "Ada", Visibility: "hidden"}, refused: issuer.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := checkNewAgent(tt.in)
			var plan *NewAgentPlan
			if err == nil {
				plan, err = planNewAgent(in, tt.st, created, ruleNow)
			}
			wantRefusal(t, err, tt.refused)
			if err != nil {
				return
			}
			if plan.Name != "Ada" || plan.ID != created.ID || plan.APIKey.Hash != created.Key.Hash() || plan.APIKey.Scopes != tt.scopes ||
				plan.Visibility != tt.vis || plan.Operator != tt.operator {
				t.Errorf("plan %+v", plan)
			}
			if _, named := plan.Audit.Detail["operator"]; named != (tt.operator != 0) || plan.Audit.Action != "agent.created" {
				t.Errorf("audit %+v", plan.Audit)
			}
		})
	}
}

func TestPlanRetrievalAndConsultation(t *testing.T) {
	const reader, other = 1, 2
	p := issuer.Principal{Key: reader, AgentID: "agt_reader", Status: issuer.AgentActive}
	rec := func(key, by int64, mods ...func(*MemoryRecord)) MemoryRecord {
		m := MemoryRecord{Key: key, Author: by, AuthorStatus: issuer.AgentActive, Status: issuer.MemoryActive, Visibility: issuer.MemoryPublic}
		for _, f := range mods {
			f(&m)
		}
		return m
	}
	private := func(m *MemoryRecord) { m.Visibility = issuer.MemoryPrivate }
	removed := func(m *MemoryRecord) { m.Status = issuer.MemoryRemoved }
	suspended := func(m *MemoryRecord) { m.AuthorStatus = issuer.AgentSuspended }
	tests := []struct {
		name     string
		m        *MemoryRecord
		readable bool // by a retrieval
		counted  bool // as a retrieval
		visible  bool // to a consultation
	}{
		{name: "unknown"},
		{name: "another's public memory", m: ptr(rec(10, other)), readable: true, counted: true, visible: true},
		{name: "one's own public memory", m: ptr(rec(10, reader)), readable: true, counted: true, visible: true},
		{name: "one's own private memory: read, not counted", m: ptr(rec(10, reader, private)), readable: true},
		{name: "another's private memory", m: ptr(rec(10, other, private))},
		{name: "a removed memory, even one's own", m: ptr(rec(10, reader, removed))},
		{name: "a suspended author's memory", m: ptr(rec(10, other, suspended))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := planRetrieval(&RetrievalState{Memory: tt.m}, p, "mem_m", ruleNow)
			if !tt.readable {
				wantRefusal(t, err, issuer.CodeNotFound)
			} else if err != nil || plan.Memory != 10 || plan.Agent != reader || (len(plan.Activity) == 1) != tt.counted {
				t.Errorf("retrieval %+v, %v", plan, err)
			}
			st := &ConsultationState{Memories: map[issuer.MemoryID]MemoryRecord{"mem_a": rec(11, other)}}
			if tt.m != nil {
				st.Memories["mem_m"] = *tt.m
			}
			cp, err := planConsultation(st, p, "rct_r", []issuer.MemoryID{"mem_a", "mem_m"}, ruleNow)
			if !tt.visible {
				wantRefusal(t, err, issuer.CodeNotFound)
				if !strings.Contains(err.Error(), "mem_m") {
					t.Errorf("the refusal %q does not name the memory", err)
				}
				return
			}
			if err != nil || !slices.Equal(cp.Memories, []int64{11, 10}) || cp.Receipt != "rct_r" ||
				len(cp.Activity) != 1 || cp.Activity[0] != (ActivityWrite{Agent: reader, Counter: CountConsultations, N: 1}) {
				t.Errorf("consultation %+v, %v", cp, err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestPlanCapabilities(t *testing.T) {
	p := issuer.Principal{Key: 3, AgentID: "agt_c"}
	tests := []struct {
		name         string
		have, caps   []string
		remove, add  []string
		unchanged    bool
		declaredOnce int
	}{
		{name: "first declaration", caps: []string{"go", "sql"}, add: []string{"go", "sql"}},
		{name: "the same set in another order", have: []string{"sql", "go"}, caps: []string{"go", "sql"}, unchanged: true},
		{name: "one replaced", have: []string{"go", "sql"}, caps: []string{"go", "rust"}, remove: []string{"sql"}, add: []string{"rust"}},
		{name: "all withdrawn", have: []string{"go"}, caps: nil, remove: []string{"go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := planCapabilities(tt.have, tt.caps, p, ruleNow, zeros{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.unchanged {
				if plan != nil {
					t.Fatalf("an unchanged set planned %+v", plan)
				}
				return
			}
			if !slices.Equal(plan.Remove, tt.remove) || !slices.Equal(plan.Add, tt.add) || !slices.Equal(subjects(plan.Revisions), []int64{3}) ||
				plan.Audit.Action != "agent.capabilities_declared" || plan.Audit.Detail["capabilities"] != len(tt.caps) {
				t.Fatalf("plan %+v, audit %+v", plan, plan.Audit)
			}
		})
	}
}

func TestPlanHolderKeys(t *testing.T) {
	const agent, other = 3, 4
	p := issuer.Principal{Key: agent, AgentID: "agt_h"}
	earlier := ruleNow.Add(-time.Hour)
	key := func(tp string) issuer.HolderKey {
		return issuer.HolderKey{Thumbprint: tp, Algorithm: "EdDSA", JWK: []byte(`{}`)}
	}
	held := func(tp string) issuer.HolderKey { k := key(tp); k.CreatedAt = earlier; return k }
	tests := []struct {
		name    string
		held    []issuer.HolderKey
		owners  map[string]int64
		keys    []issuer.HolderKey
		refused issuer.Code
		added   []string
		removed []string
		out     []string
	}{
		{name: "first keys", keys: []issuer.HolderKey{key("b"), key("a")}, added: []string{"a", "b"}, removed: []string{}, out: []string{"a", "b"}},
		{name: "unchanged: nothing written", held: []issuer.HolderKey{held("a")}, owners: map[string]int64{"a": agent},
			keys: []issuer.HolderKey{key("a")}, out: []string{"a"}},
		{name: "one replaced", held: []issuer.HolderKey{held("a"), held("c")}, owners: map[string]int64{"a": agent},
			keys: []issuer.HolderKey{key("a"), key("b")}, added: []string{"b"}, removed: []string{"c"}, out: []string{"a", "b"}},
		{name: "all removed", held: []issuer.HolderKey{held("a")}, keys: []issuer.HolderKey{}, added: []string{}, removed: []string{"a"}},
		{name: "a key bound to another agent", owners: map[string]int64{"b": other}, keys: []issuer.HolderKey{key("a"), key("b")},
			refused: issuer.CodeConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, out, err := planHolderKeys(&HolderKeyState{Held: tt.held, Owners: tt.owners}, p, tt.keys, ruleNow, zeros{})
			wantRefusal(t, err, tt.refused)
			if err != nil {
				return
			}
			var got []string
			for _, k := range out {
				got = append(got, k.Thumbprint)
				want := ruleNow
				if slices.ContainsFunc(tt.held, func(h issuer.HolderKey) bool { return h.Thumbprint == k.Thumbprint }) {
					want = earlier
				}
				if !k.CreatedAt.Equal(want) {
					t.Errorf("key %s bound at %v, want %v", k.Thumbprint, k.CreatedAt, want)
				}
			}
			if !slices.Equal(got, tt.out) {
				t.Errorf("set %v, want %v", got, tt.out)
			}
			if (plan == nil) != (tt.added == nil) {
				t.Fatalf("plan %+v", plan)
			}
			if plan == nil {
				return
			}
			detail, _ := json.Marshal(plan.Audit.Detail)
			want, _ := json.Marshal(map[string][]string{"added": tt.added, "removed": tt.removed})
			if plan.Audit.Action != "agent.holder_keys_set" || string(detail) != string(want) || !slices.Equal(subjects(plan.Revisions), []int64{agent}) {
				t.Errorf("plan %+v, audit %s %s, want %s", plan, plan.Audit.Action, detail, want)
			}
		})
	}
}

func TestPlanPassportStatus(t *testing.T) {
	const subject = 6
	hash := strings.Repeat("a", 64)
	entry := func(s issuer.PassportStatus) *PassportStatusState {
		return &PassportStatusState{Entry: &StatusEntryRecord{Subject: subject, List: 2, ListID: "sl_x", Index: 9, Status: s}, Kept: true}
	}
	tests := []struct {
		name    string
		st      *PassportStatusState
		to      issuer.PassportStatus
		refused issuer.Code
		changed bool
		action  string
	}{
		{name: "unknown or purged", st: &PassportStatusState{}, to: issuer.PassportRevoked, refused: issuer.CodeNotFound},
		{name: "kept without an entry", st: &PassportStatusState{Kept: true}, to: issuer.PassportRevoked, refused: issuer.CodeConflict},
		{name: "revoked", st: entry(issuer.PassportValid), to: issuer.PassportRevoked, changed: true, action: "passport.revoked"},
		{name: "suspended", st: entry(issuer.PassportValid), to: issuer.PassportSuspended, changed: true, action: "passport.suspended"},
		{name: "reinstated", st: entry(issuer.PassportSuspended), to: issuer.PassportValid, changed: true, action: "passport.reinstated"},
		{name: "already so: nothing written", st: entry(issuer.PassportSuspended), to: issuer.PassportSuspended},
		{name: "a revoked passport stays revoked", st: entry(issuer.PassportRevoked), to: issuer.PassportValid, refused: issuer.CodeConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := issuer.StatusChange{PassportHash: hash, To: tt.to, Reason: "why"}
			plan, out, err := planPassportStatus(tt.st, ActorAdmin, c, ruleNow, zeros{})
			wantRefusal(t, err, tt.refused)
			if err != nil {
				return
			}
			if out.Changed != tt.changed || (plan != nil) != tt.changed || out.List != "sl_x" || out.Index != 9 || out.To != tt.to {
				t.Fatalf("outcome %+v, plan %+v", out, plan)
			}
			if plan == nil {
				return
			}
			if plan.List != 2 || plan.Index != 9 || plan.Status != tt.to || plan.Reason != "why" ||
				!slices.Equal(subjects(plan.Revisions), []int64{subject}) || plan.Audit.Action != tt.action || plan.Audit.Subject != hash {
				t.Fatalf("plan %+v, audit %+v", plan, plan.Audit)
			}
		})
	}
}
