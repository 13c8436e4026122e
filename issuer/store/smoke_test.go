package store_test

import (
	"testing"

	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

func TestSmoke(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		novice := f.agent("novice")
		m1 := f.publish(author, "Power BI / Performance")
		res := f.consumeAndValidate(novice, m1, reputation.Corroborate)
		t.Logf("%+v", res)
		t.Logf("%+v", f.profile(author))
		res = f.validate(novice, m1, reputation.Contradict, "no")
		t.Logf("%+v", res)
		t.Logf("%+v", f.profile(author))
		rep, err := db.RebuildReputation(f.ctx, author.AgentID, nil)
		t.Logf("%+v %v", rep, err)
	})
}
