package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
	"github.com/remnant/passportkit/verifier"
)

// lateLists serves the status lists set once the environment, whose
// keyring they sign with, is built.
type lateLists struct{ *service.StatusLists }

// newStatusEnv is a passport environment that also serves its status
// lists, on the environment's clock and keyring.
func newStatusEnv(t *testing.T, engine store.Engine) *passportEnv {
	t.Helper()
	lists := &lateLists{}
	pe := newPassportEnv(t, engine, func(c *httpapi.Config, _ *service.Passports, _ *store.DB) { c.StatusLists = lists })
	lists.StatusLists = service.NewStatusLists(pe.db, pe.ring, service.StatusListOptions{Now: pe.clock.Now})
	return pe
}

// statusOf verifies bundle against the published trust file with the list
// token served at its status URI, and returns the verdict and the status
// check.
func (pe *passportEnv) statusOf(bundle []byte, token []byte) (*verifier.Result, verifier.Check) {
	pe.t.Helper()
	v := pe.verifier()
	list := v.ReadStatusList(token)
	res, err := v.Verify(context.Background(), bundle, verifier.AnySubject().At(pe.clock.Now()).WithStatusList(list))
	if err != nil {
		pe.t.Fatal(err)
	}
	return res, res.Check(verifier.CheckStatus)
}

// TestStatusListOverHTTP: a passport names its entry in a list that GET
// /status/{list} serves as a signed token with a strong ETag, 304 on a
// match, and a max-age that ends with the token's ttl; a suspension,
// reinstatement and revocation show in the token served a second later,
// and the verifier reports them; a key rotation has the list signed again
// by the new key, and with no active key no list is served.
func TestStatusListOverHTTP(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			pe := newStatusEnv(t, engine)
			id, _ := pe.subject("Subject", 1, "")
			if _, err := pe.ring.EnsureActive(ctx, passport.EdDSA); err != nil {
				t.Fatal(err)
			}
			bundle := must(t, pe.get("/api/public/agents/"+string(id)+"/passport", ""), 200)
			res := pe.verify(bundle.body)
			p, err := res.Decode()
			if err != nil || p.Status == nil {
				t.Fatalf("the passport names no status list entry: %v", err)
			}
			uri, err := url.Parse(p.Status.StatusList.URI)
			if err != nil || uri.Scheme != "https" || uri.Host != "issuer.test" || !strings.HasPrefix(uri.Path, "/status/sl_") {
				t.Fatalf("status uri %q", p.Status.StatusList.URI)
			}
			path := uri.Path
			if c := res.Check(verifier.CheckStatus); c.Reason != passport.ReasonNotChecked {
				t.Fatalf("without a list, the status check is %+v", c)
			}

			fetch := func() response {
				t.Helper()
				r := must(t, pe.get(path, ""), 200)
				sum := sha256.Sum256(r.body)
				if ct, etag := r.header.Get("Content-Type"), r.header.Get("ETag"); ct != statuslist.MediaType || etag != `"`+hex.EncodeToString(sum[:])+`"` {
					t.Fatalf("Content-Type %q, ETag %s", ct, etag)
				}
				return r
			}
			first := fetch()
			if cc := first.header.Get("Cache-Control"); cc != "public, max-age=300" {
				t.Fatalf("a fresh token's Cache-Control %q", cc)
			}
			if _, c := pe.statusOf(bundle.body, first.body); !c.OK {
				t.Fatalf("status check %+v", c)
			}
			etag := first.header.Get("ETag")
			if r := must(t, pe.get(path, etag), 304); len(r.body) != 0 || r.header.Get("ETag") != etag {
				t.Fatalf("304 with ETag %q and %d bytes", r.header.Get("ETag"), len(r.body))
			}

			// The token ages; its max-age shrinks with it until it is
			// signed again.
			pe.clock.Add(30*time.Second + 200*time.Millisecond)
			aged := fetch()
			if string(aged.body) != string(first.body) || aged.header.Get("Cache-Control") != "public, max-age=269" {
				t.Fatalf("after 30.2 s: same token %v, Cache-Control %q", string(aged.body) == string(first.body), aged.header.Get("Cache-Control"))
			}
			pe.clock.Add(service.StatusListRefresh) // 90.2 s: signed at 90 s
			if again := fetch(); string(again.body) == string(first.body) || again.header.Get("Cache-Control") != "public, max-age=299" {
				t.Fatalf("a token older than %v was served again (Cache-Control %q)", service.StatusListRefresh, again.header.Get("Cache-Control"))
			}

			set := func(to issuer.PassportStatus) {
				t.Helper()
				c, err := issuer.NewStatusChange(res.PassportHash, to, "test")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := storetest.Admin(pe.db).SetPassportStatus(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			wantStatus := func(stage string, want passport.Reason) {
				t.Helper()
				verdict, check := pe.statusOf(bundle.body, fetch().body)
				if check.Reason != want || verdict.Verified != (want == passport.ReasonOK) {
					t.Fatalf("%s: verified %v, status check %+v", stage, verdict.Verified, check)
				}
			}
			// The list was last encoded long ago: a change shows at once.
			set(issuer.PassportSuspended)
			wantStatus("suspended", passport.ReasonSuspended)
			// Within a second of that encoding, the next change may lag; a
			// second later it shows.
			set(issuer.PassportValid)
			wantStatus("reinstated within the second", passport.ReasonSuspended)
			pe.clock.Add(service.StatusListDebounce)
			wantStatus("reinstated", passport.ReasonOK)
			pe.clock.Add(service.StatusListDebounce)
			set(issuer.PassportRevoked)
			wantStatus("revoked", passport.ReasonRevoked)

			rot, err := pe.ring.Rotate(ctx, "", passport.EdDSA)
			if err != nil {
				t.Fatal(err)
			}
			if kid := tokenKID(t, fetch().body); kid != rot.Active.KID {
				t.Fatalf("after a rotation the list is signed by %s, not the active %s", kid, rot.Active.KID)
			}
			if _, err := pe.ring.Retire(ctx, rot.Active.KID, true); err != nil {
				t.Fatal(err)
			}
			wantProblem(t, pe.get(path, ""), 503, issuer.CodeUnavailable)

			wantProblem(t, pe.get("/status/sl_aaaaaaaaaaaaaaaaaaaaaaaaaa", ""), 404, issuer.CodeNotFound)
			wantProblem(t, pe.get("/status/1", ""), 404, issuer.CodeNotFound)
			wantProblem(t, pe.get(path+"?x=1", ""), 400, issuer.CodeInvalid)
		})
	}
}

// tokenKID returns the kid of a status list token's protected header,
// which holds exactly alg, kid and typ.
func tokenKID(t *testing.T, token []byte) string {
	t.Helper()
	head, _, _ := strings.Cut(string(token), ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]string
	if err := json.Unmarshal(raw, &h); err != nil || len(h) != 3 || h["typ"] != statuslist.Typ || h["alg"] == "" {
		t.Fatalf("protected header %s: %v", raw, err)
	}
	return h["kid"]
}
