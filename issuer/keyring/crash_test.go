package keyring_test

import (
	"context"
	"errors"
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
	"github.com/remnant/passportkit/passport"
)

// The environment of a child process that records a key and kills itself
// at a step (see TestCrashChild).
const (
	envCrashStep = "KEYRING_CRASH_STEP"
	envCrashOp   = "KEYRING_CRASH_OP"
	envCrashDB   = "KEYRING_CRASH_DB"
	envCrashDir  = "KEYRING_CRASH_DIR"
	// envCrashHold names a file the child creates at the step, where it
	// then waits to be killed instead of killing itself.
	envCrashHold = "KEYRING_CRASH_HOLD"
)

// TestCrashChild is not a test: run by TestCrashAtEachStep in a child
// process, it rotates or generates a key and kills its own process with
// SIGKILL at the step named by the environment (or waits there, see
// envCrashHold).
func TestCrashChild(t *testing.T) {
	step := os.Getenv(envCrashStep)
	if step == "" {
		t.Skip("run by TestCrashAtEachStep")
	}
	ctx := context.Background()
	db, err := store.Open(ctx, os.Getenv(envCrashDB), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ring, err := keyring.New(db, keyring.Config{Issuer: testIssuer, Dir: os.Getenv(envCrashDir)})
	if err != nil {
		t.Fatal(err)
	}
	keyring.SetAtStep(func(at string) {
		if at != step {
			return
		}
		if hold := os.Getenv(envCrashHold); hold != "" {
			if err := os.WriteFile(hold, nil, 0o600); err != nil {
				t.Error(err)
			}
		} else {
			p, _ := os.FindProcess(os.Getpid())
			p.Kill()
		}
		select {}
	})
	if os.Getenv(envCrashOp) == "generate" {
		_, err = ring.Generate(ctx, passport.EdDSA)
	} else {
		_, err = ring.Rotate(ctx, "", passport.EdDSA)
	}
	t.Fatalf("not stopped at %s: %v", step, err)
}

// TestCrashAtEachStep stops a process recording a new key (by rotation,
// and by generation) with SIGKILL at each step: the temporary file
// written, the record committed, the file renamed. The key directory then
// holds what the step says, and the next keyring to open it settles it:
// the old state before the commit (the temporary file removed), the new
// one after (the file renamed), and never a file without a record or a
// record without a file. A keyring already running completes a file its
// active key lacks as soon as it needs it.
func TestCrashAtEachStep(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		for _, op := range []string{"rotate", "generate"} {
			for _, step := range []string{keyring.StepWritten, keyring.StepCommitted, keyring.StepRenamed} {
				t.Run(string(engine)+"/"+op+"/"+step, func(t *testing.T) {
					crashAt(t, engine, op, step)
				})
			}
		}
	}
}

// sharedStore returns a fresh, migrated store of engine, closed when t
// ends, and the database URL a child process opens it by.
func sharedStore(t *testing.T, engine store.Engine) (string, *store.DB) {
	t.Helper()
	dsn := storetest.URL(t, engine)
	db, err := store.Open(context.Background(), dsn, store.Options{Logger: storetest.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dsn, db
}

// crashChild returns the command of a child process that runs op on the
// store dsn and the key directory dir, and stops at step.
func crashChild(op, step, dsn, dir string, env ...string) *exec.Cmd {
	child := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	child.Env = append(os.Environ(), envCrashStep+"="+step, envCrashOp+"="+op, envCrashDB+"="+dsn, envCrashDir+"="+dir)
	child.Env = append(child.Env, env...)
	return child
}

// crashAt runs the child that stops op at step on a fresh store of engine
// and checks what it leaves.
func crashAt(t *testing.T, engine store.Engine, op, step string) {
	ctx, dir := context.Background(), filepath.Join(t.TempDir(), "keys")
	dsn, db := sharedStore(t, engine)
	running, err := keyring.New(db, keyring.Config{Issuer: testIssuer, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	first, err := running.EnsureActive(ctx, passport.EdDSA)
	if err != nil {
		t.Fatal(err)
	}

	out, err := crashChild(op, step, dsn, dir).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Exited() {
		t.Fatalf("the child was not killed at %s: %v\n%s", step, err, out)
	}

	keys, err := db.SigningKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	committed := step != keyring.StepWritten
	if want := map[bool]int{false: 1, true: 2}[committed]; len(keys) != want {
		t.Fatalf("%d keys recorded after a stop at %s, want %d", len(keys), step, want)
	}
	var kid string
	for _, k := range keys {
		if k.KID != first.Key.KID {
			kid = k.KID
		}
	}
	temps, _ := filepath.Glob(filepath.Join(dir, "*.jwk.tmp"))
	if len(temps) != map[bool]int{false: 1, true: 0}[step == keyring.StepRenamed] {
		t.Fatalf("temporary files %v after a stop at %s", temps, step)
	}

	// A keyring that was running meanwhile completes the new active key's
	// file when it first needs it.
	if op == "rotate" && step == keyring.StepCommitted {
		s, k, err := running.Active(ctx)
		if err != nil || k.KID != kid || s.Key().KeyID() != kid {
			t.Fatalf("the running keyring signs with %s, want %s: %v", k.KID, kid, err)
		}
	}

	// The next keyring settles the directory.
	next, err := keyring.New(db, keyring.Config{Issuer: testIssuer, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := next.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var recorded, files []string
	for _, k := range listed {
		if k.Private != "present" {
			t.Fatalf("key %s: private half %s %s", k.KID, k.Private, k.PrivateError)
		}
		recorded = append(recorded, k.KID+".jwk")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		files = append(files, e.Name())
	}
	slices.Sort(recorded)
	if !slices.Equal(files, recorded) {
		t.Fatalf("after a stop at %s the key directory holds %v; the records name %v", step, files, recorded)
	}
	_, active, err := next.Active(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]string{false: first.Key.KID, true: kid}[committed && op == "rotate"]; active.KID != want {
		t.Fatalf("active %s after a stop at %s, want %s", active.KID, step, want)
	}
	if committed && op == "generate" && !slices.ContainsFunc(listed, func(k keyring.KeyInfo) bool {
		return k.KID == kid && k.Status == issuer.KeyReady
	}) {
		t.Fatalf("the generated key %s is not ready: %+v", kid, listed)
	}
}

// TestReconcileWaitsForARunningRotation holds a rotation in a child
// process between writing its temporary file and recording the key: a
// keyring opened meanwhile waits for the keys lock rather than take the
// file for a stopped process's, and once the child is killed (its
// transaction rolled back) it removes the file.
func TestReconcileWaitsForARunningRotation(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx, tmp := context.Background(), t.TempDir()
			dir, held := filepath.Join(tmp, "keys"), filepath.Join(tmp, "held")
			dsn, db := sharedStore(t, engine)
			child := crashChild("rotate", keyring.StepWritten, dsn, dir, envCrashHold+"="+held)
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			defer child.Process.Kill()
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(held); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the child never reached its step")
				}
			}
			temps, _ := filepath.Glob(filepath.Join(dir, "*.jwk.tmp"))
			if len(temps) != 1 {
				t.Fatalf("temporary files %v while the rotation is held", temps)
			}

			ring, err := keyring.New(db, keyring.Config{Issuer: testIssuer, Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			listed := make(chan error, 1)
			go func() { _, err := ring.List(ctx); listed <- err }()
			select {
			case err := <-listed:
				t.Fatalf("the keyring opened while a rotation held the keys lock: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			if _, err := os.Stat(temps[0]); err != nil {
				t.Fatalf("the running rotation's file was touched: %v", err)
			}
			child.Process.Kill()
			child.Wait()
			if err := <-listed; err != nil {
				t.Fatal(err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("the key directory holds %d files after the rotation died uncommitted", len(entries))
			}
		})
	}
}
