package main

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// keyState is what the key directory and the records hold, once a keyring
// has opened the directory.
type keyState struct {
	recorded []string // kids, sorted
	active   string
	files    []string // names in the key directory, sorted
}

// openKeys opens the keyring of dsn and dir as the next process would,
// lists the keys (which reconciles the directory) and returns the state.
func openKeys(t *testing.T, dsn, dir string) keyState {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{Logger: storetest.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ring, err := keyring.New(db, keyring.Config{Issuer: defaultIssuer, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ring.List(ctx)
	if err != nil {
		t.Fatalf("the keyring does not open: %v", err)
	}
	var s keyState
	for _, k := range keys {
		s.recorded = append(s.recorded, k.KID)
		if k.Status == issuer.KeyActive {
			s.active = k.KID
		}
		if k.Private != "present" {
			t.Fatalf("key %s is recorded and its private half is %s %s", k.KID, k.Private, k.PrivateError)
		}
	}
	slices.Sort(s.recorded)
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		s.files = append(s.files, e.Name())
	}
	return s
}

// check fails unless every file in the key directory is the key file of a
// recorded key and every recorded key has its file.
func (s keyState) check(t *testing.T) {
	t.Helper()
	var want []string
	for _, kid := range s.recorded {
		want = append(want, kid+".jwk")
	}
	if !slices.Equal(s.files, want) {
		t.Fatalf("the key directory holds %v; the records name %v", s.files, s.recorded)
	}
}

// TestRotateSurvivesKill kills `passport-issuer keys rotate` processes
// with SIGKILL at random moments of their run. After each, the next
// keyring opens cleanly and finds the old state (the same keys, the same
// one active) or the new one (one key more, and active): never a private
// key file without its record, nor a record without its file. On each
// engine.
func TestRotateSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills many processes")
	}
	bin, err := exec.LookPath("passport-issuer")
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dsn := storetest.URL(t, engine)
			dir := filepath.Join(t.TempDir(), "keys")
			cmd(t, dsn, "migrate")
			rotate := func() *exec.Cmd {
				c := exec.Command(bin, "--db", dsn, "keys", "rotate", "--keys", dir)
				c.Env = append(os.Environ(), "PASSPORT_LOG_LEVEL=error")
				return c
			}
			// A whole run sets the span the kills are drawn from.
			start := time.Now()
			if out, err := rotate().CombinedOutput(); err != nil {
				t.Fatalf("rotate: %v\n%s", err, out)
			}
			span := time.Since(start)
			before := openKeys(t, dsn, dir)
			before.check(t)
			r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
			kills, completed := 0, 0
			for deadline := time.Now().Add(20 * time.Second); kills < 100 && time.Now().Before(deadline); {
				c := rotate()
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(r.Int64N(int64(span + span/4))))
				if c.Process.Kill() == nil {
					kills++
				}
				c.Wait()
				after := openKeys(t, dsn, dir)
				after.check(t)
				switch {
				case slices.Equal(after.recorded, before.recorded) && after.active == before.active:
				case len(after.recorded) == len(before.recorded)+1 && !slices.Contains(before.recorded, after.active) &&
					!slices.ContainsFunc(before.recorded, func(kid string) bool { return !slices.Contains(after.recorded, kid) }):
					completed++
				default:
					t.Fatalf("neither the old state nor the new: before %+v, after %+v", before, after)
				}
				before = after
			}
			t.Logf("%d kills over a span of %v; %d rotations completed", kills, span, completed)
			if completed == kills {
				t.Fatalf("no kill stopped a rotation before it committed (%d kills): the span is too short", kills)
			}
		})
	}
}
