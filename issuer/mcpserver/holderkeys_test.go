package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// keysArgs is the arguments of set_holder_keys for keys; nil leaves keys
// out.
func keysArgs(keys []issuer.HolderKeyProof) map[string]any {
	if keys == nil {
		return map[string]any{}
	}
	return map[string]any{"keys": keys}
}

func TestHolderKeyTools(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		aKey, a := e.agent("holder")
		bKey, b := e.agent("other")
		as, bs := e.session(aKey), e.session(bKey)
		var an, bn issuer.HolderKeyNonce
		if te := call(t, as, "holder_key_nonce", map[string]any{}, &an); te != nil {
			t.Fatal(te)
		}
		if te := call(t, bs, "holder_key_nonce", map[string]any{}, &bn); te != nil {
			t.Fatal(te)
		}
		ed, es := storetest.NewHolderKey(t, passport.EdDSA), storetest.NewHolderKey(t, passport.ES256)
		rev, _ := db.RevisionOf(context.Background(), a.AgentID)
		var got issuer.HolderKeys
		if te := call(t, as, "set_holder_keys", keysArgs([]issuer.HolderKeyProof{ed.Proved(t, an.Nonce, a.AgentID), es.Proved(t, an.Nonce, a.AgentID)}), &got); te != nil {
			t.Fatal(te)
		}
		if len(got.Keys) != 2 {
			t.Fatalf("stored %+v", got)
		}
		if r, _ := db.RevisionOf(context.Background(), a.AgentID); r == rev {
			t.Fatal("set_holder_keys did not bump the revision")
		}
		s, err := db.LoadSubject(context.Background(), a.AgentID, time.Now)
		if err != nil || len(s.HolderKeys) != 2 || s.HolderKeys[0] != got.Keys[0].Thumbprint || s.HolderKeys[0] >= s.HolderKeys[1] {
			t.Fatalf("loaded %v (%v), stored %+v", s.HolderKeys, err, got)
		}

		te := call(t, bs, "set_holder_keys", keysArgs([]issuer.HolderKeyProof{es.Proved(t, bn.Nonce, b.AgentID)}), &got)
		if te == nil || te.Code != issuer.CodeConflict {
			t.Fatalf("another agent's key: %+v", te)
		}
		for _, c := range storetest.RefusedHolderKeys(t, a.AgentID, an.Nonce, bn.Nonce) {
			te := call(t, as, "set_holder_keys", keysArgs(c.Keys), &got)
			if te == nil || te.Code != c.Code {
				t.Errorf("%s: %+v, want %s", c.Name, te, c.Code)
			}
		}

		reader, err := storetest.Admin(db).CreateAgent(context.Background(), service.NewAgent{Name: "reader", Scopes: []issuer.Scope{issuer.ScopeSearch}})
		if err != nil {
			t.Fatal(err)
		}
		rs := e.session(reader.Key)
		for name, args := range map[string]map[string]any{"holder_key_nonce": {}, "set_holder_keys": keysArgs([]issuer.HolderKeyProof{})} {
			if te := call(t, rs, name, args, &got); te == nil || te.Code != issuer.CodeInsufficientScope {
				t.Errorf("%s with a search key: %+v", name, te)
			}
		}
	})
}
