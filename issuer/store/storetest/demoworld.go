package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
)

// DemoWorld builds the world of demoworld.DefaultSeed through the service
// on a fresh store of engine, its history ending at now, and returns the
// store, the service over it and the world. The clock of both then stays
// at now.
func DemoWorld(t testing.TB, engine store.Engine, now time.Time) (*store.DB, *service.Service, *demoworld.World) {
	t.Helper()
	w := demoworld.Generate(demoworld.DefaultSeed)
	clock, ids := &demoworld.Clock{}, &demoworld.IDs{}
	db := Open(t, engine, store.Options{Now: clock.Now})
	if _, err := demoworld.Build(context.Background(), w, demoworld.NewEnv(db, clock, ids, now)); err != nil {
		t.Fatalf("storetest: the demo world: %v", err)
	}
	clock.Set(now)
	return db, service.New(db, service.Options{Now: clock.Now}), w
}

// HiddenAgents returns agents of each kind the public routes treat as
// unknown, on db, which holds w: a member of w's ring, which it suspends;
// an id no agent has; and a new private and a new unlisted agent.
func HiddenAgents(t testing.TB, db *store.DB, w *demoworld.World) []issuer.AgentID {
	t.Helper()
	ctx := context.Background()
	suspended := w.AgentID(w.OfRole(demoworld.RoleRing)[1])
	admin := Admin(db)
	if err := admin.SetAgentStatus(ctx, suspended, issuer.AgentSuspended); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	hidden := []issuer.AgentID{suspended, issuer.AgentID("agt_" + strings.Repeat("q", 26))}
	for _, vis := range []issuer.Visibility{issuer.VisibilityPrivate, issuer.VisibilityUnlisted} {
		a, err := admin.CreateAgent(ctx, service.NewAgent{Name: "Hidden " + string(vis), Visibility: vis})
		if err != nil {
			t.Fatalf("storetest: %v", err)
		}
		hidden = append(hidden, a.ID)
	}
	return hidden
}

// Trust returns the public trust API over passports, recording skill
// history in db, its cursors sealed with key (seal.KeySize bytes).
func Trust(t testing.TB, passports *service.Passports, db *store.DB, key []byte) *service.Trust {
	t.Helper()
	sealer, err := seal.New(key)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	trust, err := service.NewTrust(passports, db, service.TrustOptions{Cursors: sealer})
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return trust
}
