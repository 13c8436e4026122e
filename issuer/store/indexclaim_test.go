package store_test

import (
	"context"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestClaimSubjectIndex checks the claim on a subject's index entry: it
// runs the indexing of a subject awaiting it, not of one whose entry is
// current, and on PostgreSQL not while another connection (another
// process) holds the claim on the same subject, though it does for
// another subject.
func TestClaimSubjectIndex(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var ids []issuer.AgentID
		for _, name := range []string{"Claimed", "Other"} {
			a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.ID)
		}
		const today = "2026-06-01"
		var same, other bool
		ran, err := db.ClaimSubjectIndex(ctx, ids[0], today, func() error {
			var err error
			if same, err = db.ClaimSubjectIndex(ctx, ids[0], today, func() error { return nil }); err != nil {
				return err
			}
			if other, err = db.ClaimSubjectIndex(ctx, ids[1], today, func() error { return nil }); err != nil {
				return err
			}
			rev, err := db.RevisionOf(ctx, ids[0])
			if err != nil {
				return err
			}
			_, err = db.WriteSubjectIndex(ctx, service.SubjectIndex{Subject: ids[0], Revision: service.SubjectToken(rev), TrustLevel: "new"})
			return err
		})
		if err != nil || !ran {
			t.Fatalf("a subject never indexed: ran %v, %v", ran, err)
		}
		if want := db.Engine() != store.Postgres; same != want {
			t.Errorf("a claim on a claimed subject ran: %v; want %v on %s", same, want, db.Engine())
		}
		if !other {
			t.Error("a claim on another subject, awaiting indexing, did not run")
		}
		ran, err = db.ClaimSubjectIndex(ctx, ids[0], today, func() error { return nil })
		if err != nil || ran {
			t.Fatalf("a subject whose entry is current: ran %v, %v", ran, err)
		}
	})
}
