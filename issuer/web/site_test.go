package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/passport"
)

// The handler's dependencies are what the issuer's packages provide.
var (
	_ web.Profiles   = (*service.Service)(nil)
	_ web.Passports  = (*service.Passports)(nil)
	_ web.Trust      = (*service.Trust)(nil)
	_ web.TrustFiles = (*keyring.Keyring)(nil)
	_ web.Finder     = (*service.Discovery)(nil)
	_ httpapi.Pages  = (*web.Handler)(nil)
)

// site is the demo world served on loopback the way passport-issuer serve
// serves it: the API with the pages beside it, and the discovery index
// built.
type site struct {
	URL       string
	w         *demoworld.World
	db        *store.DB
	app       *service.Service
	passports *service.Passports
	trust     *service.Trust
	discovery *service.Discovery
	ring      *keyring.Keyring
	now       time.Time

	main, ring0, declarer issuer.AgentID
	// hidden are agents that must not be shown: private, unlisted and
	// suspended.
	hidden map[string]issuer.AgentID
	// odd is a public agent whose name and skill hold characters that
	// must be escaped.
	odd    issuer.AgentID
	oddKey issuer.Principal
	// sibling is an agent of the ring's operator whose memory about
	// demoworld.SkillEstimated a ring member tried to praise, refused as
	// same_owner: the ring's only agent on that skill.
	sibling issuer.AgentID
}

// publish writes a note by the odd agent about its odd skill: a write that
// changes its evidence.
func (s *site) publish(t testing.TB, title string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"category": "notes", "title": title, "content": "Some content.",
		"appliesTo": map[string]string{"skill": oddSkill}})
	pub, err := issuer.ParsePublication(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.app.Publish(context.Background(), s.oddKey, pub); err != nil {
		t.Fatal(err)
	}
}

// oddName and oddSkill are untrusted text the pages must escape.
const (
	oddName  = `Tom & "Jerry" <3 'quotes'`
	oddSkill = `<img src=x onerror=alert(1)> & friends`
)

// newSite builds the demo world (seed 1) on engine, a few agents besides,
// indexes it for discovery, and serves it. The pages read the trust
// service through wrap, when given.
func newSite(t testing.TB, engine store.Engine, wrap ...func(*site, web.Trust) web.Trust) *site {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	s := &site{now: now, hidden: map[string]issuer.AgentID{}}
	s.db, s.app, s.w = storetest.DemoWorld(t, engine, now)
	s.main = s.w.AgentID(s.w.Main())
	s.ring0 = s.w.AgentID(s.w.OfRole(demoworld.RoleRing)[0])
	s.declarer = s.w.AgentID(s.w.OfRole(demoworld.RoleDeclarer)[0])

	for _, v := range []issuer.Visibility{issuer.VisibilityPrivate, issuer.VisibilityUnlisted} {
		a, err := storetest.Admin(s.db).CreateAgent(ctx, service.NewAgent{Name: "Hidden " + string(v), Visibility: v})
		if err != nil {
			t.Fatal(err)
		}
		s.hidden[string(v)] = a.ID
	}
	susp, err := storetest.Admin(s.db).CreateAgent(ctx, service.NewAgent{Name: "Suspended agent"})
	if err != nil {
		t.Fatal(err)
	}
	if err := storetest.Admin(s.db).SetAgentStatus(ctx, susp.ID, issuer.AgentSuspended); err != nil {
		t.Fatal(err)
	}
	s.hidden["suspended"] = susp.ID

	odd, err := storetest.Admin(s.db).CreateAgent(ctx, service.NewAgent{Name: oddName})
	if err != nil {
		t.Fatal(err)
	}
	s.odd = odd.ID
	if s.oddKey, err = s.app.Authenticate(ctx, odd.Key); err != nil {
		t.Fatal(err)
	}
	s.publish(t, "A note")
	s.addSibling(t)

	s.ring, err = keyring.New(s.db, keyring.Config{Issuer: "http://issuer.test", Dir: keyDir(t), MaxPassportTTL: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return now }
	s.passports = service.NewPassports(s.db, s.ring, service.PassportOptions{Now: clock})
	s.trust = storetest.Trust(t, s.passports, s.db, make([]byte, seal.KeySize))
	s.discovery = service.NewDiscovery(s.db, s.passports, storetest.Sealer(t, s.db), service.DiscoveryOptions{Now: clock})
	if _, err := s.discovery.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var trust web.Trust = s.trust
	for _, w := range wrap {
		trust = w(s, trust)
	}
	pages, err := web.New(web.Config{Profiles: s.app, Passports: s.passports, Trust: trust, Keys: s.ring, Finder: s.discovery,
		Now: clock, Logger: storetest.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(s.app, storetest.Logger(t), httpapi.Config{
		Keys: s.ring, Passports: s.passports, Trust: s.trust, Agents: s.discovery, Pages: pages, RatePerSecond: 10000, Burst: 10000,
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// addSibling adds an agent to the demo world's same-owner ring: it
// publishes a memory about demoworld.SkillEstimated, and a ring member's
// praise of it is refused as same_owner, as the ring's praise of one
// another is.
func (s *site) addSibling(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	ring := s.w.OfRole(demoworld.RoleRing)
	sib, err := storetest.Admin(s.db).CreateAgent(ctx, service.NewAgent{Name: "Echo Four", Operator: s.w.OperatorID(s.w.Agents[ring[0]].Operator)})
	if err != nil {
		t.Fatal(err)
	}
	s.sibling = sib.ID
	author, err := s.app.Authenticate(ctx, sib.Key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := issuer.ParsePublication([]byte(`{"category":"postgresql","title":"Index every foreign key","content":"Every foreign key wants an index.","appliesTo":{"skill":"` +
		demoworld.SkillEstimated + `"}}`))
	if err != nil {
		t.Fatal(err)
	}
	mem, err := s.app.Publish(ctx, author, pub)
	if err != nil {
		t.Fatal(err)
	}
	key, err := storetest.Admin(s.db).RotateKey(ctx, s.w.AgentID(ring[1]), nil)
	if err != nil {
		t.Fatal(err)
	}
	praiser, err := s.app.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.app.Retrieve(ctx, praiser, mem.ID); err != nil {
		t.Fatal(err)
	}
	f, err := issuer.ParseFeedback([]byte(`{"type":"corroborate"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.app.SubmitFeedback(ctx, praiser, mem.ID, f, issuer.TransportHTTP); issuer.ErrorCode(err) != issuer.CodeSameOwner {
		t.Fatalf("a ring member's praise of its sibling: %v, want %s", err, issuer.CodeSameOwner)
	}
}

// keyDir returns a key directory the keyring accepts: mode 0700.
func keyDir(t testing.TB) string {
	dir := t.TempDir() + "/keys"
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// get fetches path and returns the response and its body.
func (s *site) get(t testing.TB, path string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// bundle returns the signed passport of id as the API serves it.
func (s *site) bundle(t testing.TB, id issuer.AgentID) []byte {
	t.Helper()
	res, body := s.get(t, "/api/public/agents/"+string(id)+"/passport")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("passport of %s: %d %s", id, res.StatusCode, body)
	}
	return []byte(body)
}

// tamper returns b with one character of its signed snapshot changed, so
// that the readable snapshot no longer matches what was signed.
func tamper(t testing.TB, b []byte) []byte {
	t.Helper()
	out := []byte(strings.Replace(string(b), `"reputationScore":`, `"reputationScore":1`, 1))
	if string(out) == string(b) {
		t.Fatal("nothing to tamper with")
	}
	return out
}
