package storetest

// The replicated pair: a primary made by initdb in a temporary directory,
// and a streaming replica of it made by pg_basebackup -R in another, each
// listening on 127.0.0.1 on a port the kernel chose. It needs the server's
// programs (initdb, pg_ctl, pg_basebackup, postgres) in a directory
// /usr/lib/postgresql/*/bin, the highest version first; a test skips, in
// one line, when they are absent, and fails instead under EnvRequired. It
// never touches a server it did not start: the primary trusts local
// connections and replication from 127.0.0.1 through its own pg_hba.conf.
//
// PostgreSQL refuses to run as root: when the test runs as root, the
// programs run as the postgres user (runuser -u postgres), which owns the
// directories. Both servers are stopped and their directory removed when
// the test ends.

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/remnant/passportkit/issuer/store"
)

// programs are the server programs a replicated pair needs.
var programs = []string{"initdb", "pg_ctl", "pg_basebackup", "postgres"}

// binDir returns the highest-versioned /usr/lib/postgresql/*/bin that holds
// every program, or "".
func binDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if slices.IndexFunc(programs, func(p string) bool {
			_, err := os.Stat(filepath.Join(d, p))
			return err != nil
		}) < 0 {
			return d
		}
	}
	return ""
}

// version is the major version a /usr/lib/postgresql/N/bin path names.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Replicated is a primary and a streaming replica of it.
type Replicated struct {
	// PrimaryURL and ReplicaURL are postgres:// URLs of the database
	// "postgres" on each server.
	PrimaryURL, ReplicaURL string

	t       testing.TB
	bin     string
	owner   *user.User // the user the programs run as; nil: the test's own
	primary *sql.DB
	replica *sql.DB
}

// StartReplicated starts a primary and a replica streaming from it, and
// returns once the replica accepts reads. Under -short it skips the test.
func StartReplicated(t testing.TB) *Replicated {
	t.Helper()
	if testing.Short() {
		t.Skip("storetest: -short starts no PostgreSQL server")
	}
	r := &Replicated{t: t, bin: binDir()}
	if r.bin == "" {
		if Required() {
			t.Fatalf("storetest: no PostgreSQL server programs in /usr/lib/postgresql/*/bin, and %s requires them", EnvRequired)
		}
		t.Skip("storetest: no PostgreSQL server programs in /usr/lib/postgresql/*/bin: the replica is not tested")
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("storetest: running as root, and PostgreSQL refuses to: %v", err)
		}
		r.owner = u
	}
	root := r.dir()
	primary, replica := filepath.Join(root, "primary"), filepath.Join(root, "replica")
	r.run("initdb", "-D", primary, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	pport := r.start(primary, root, "host replication all 127.0.0.1/32 trust\n")
	r.PrimaryURL = serverURL(pport)
	r.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(pport), "-U", "postgres", "-D", replica, "-R", "-X", "stream", "--no-sync")
	r.ReplicaURL = serverURL(r.start(replica, root, ""))
	r.primary, r.replica = r.open(r.PrimaryURL), r.open(r.ReplicaURL)
	return r
}

// serverURL is the URL of the database postgres on the server at port.
func serverURL(port int) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// dir creates the directory the servers live in, owned by the user they run
// as, and removes it when the test ends (after the servers stop: cleanups
// run last first).
func (r *Replicated) dir() string {
	root, err := os.MkdirTemp("", "passportkit-pg-")
	if err != nil {
		r.t.Fatalf("storetest: %v", err)
	}
	r.t.Cleanup(func() { os.RemoveAll(root) })
	if r.owner != nil {
		uid, _ := strconv.Atoi(r.owner.Uid)
		gid, _ := strconv.Atoi(r.owner.Gid)
		if err := os.Chown(root, uid, gid); err != nil {
			r.t.Fatalf("storetest: %v", err)
		}
	}
	return root
}

// command returns the server program name with args, run as the owner.
func (r *Replicated) command(name string, args ...string) *exec.Cmd {
	prog := filepath.Join(r.bin, name)
	if r.owner != nil {
		return exec.Command("runuser", append([]string{"-u", r.owner.Username, "--", prog}, args...)...)
	}
	return exec.Command(prog, args...)
}

// run runs the server program name with args and fails the test, with its
// output, when it fails.
func (r *Replicated) run(name string, args ...string) {
	r.t.Helper()
	if out, err := r.command(name, args...).CombinedOutput(); err != nil {
		r.t.Fatalf("storetest: %s: %v\n%s", name, err, out)
	}
}

// start configures the data directory data to listen on a free port of
// 127.0.0.1, with its socket in sockets, adds hba to its pg_hba.conf,
// starts it, and stops it when the test ends. It returns the port.
func (r *Replicated) start(data, sockets, hba string) int {
	r.t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.t.Fatalf("storetest: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	// The last setting of a name wins: these override what the copy of the
	// primary's configuration says in the replica.
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nmax_connections = 40\nshared_buffers = 32MB\n", port, sockets)
	r.appendTo(filepath.Join(data, "postgresql.conf"), conf)
	if hba != "" {
		r.appendTo(filepath.Join(data, "pg_hba.conf"), hba)
	}
	r.run("pg_ctl", "-D", data, "-l", filepath.Join(data, "server.log"), "-w", "-t", "120", "start")
	r.t.Cleanup(func() {
		if out, err := r.command("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
			r.t.Errorf("storetest: stop %s: %v\n%s", data, err, out)
		}
	})
	return port
}

// appendTo appends text to the file path, which the owner owns.
func (r *Replicated) appendTo(path, text string) {
	r.t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		r.t.Fatalf("storetest: %v", err)
	}
}

// open opens a pool on dsn, closed when the test ends.
func (r *Replicated) open(dsn string) *sql.DB {
	r.t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		r.t.Fatalf("storetest: %v", err)
	}
	db.SetMaxOpenConns(2)
	r.t.Cleanup(func() { db.Close() })
	return db
}

// Sync waits until the replica has replayed everything the primary had
// written when Sync was called.
func (r *Replicated) Sync(ctx context.Context) error {
	var lsn string
	if err := r.primary.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return fmt.Errorf("storetest: %w", err)
	}
	for {
		var done bool
		if err := r.replica.QueryRowContext(ctx, `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn`, lsn).Scan(&done); err != nil {
			return fmt.Errorf("storetest: %w", err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// PauseReplay stops the replica replaying what the primary writes, until
// ResumeReplay: from then on it stays behind.
func (r *Replicated) PauseReplay(ctx context.Context) error {
	return r.replay(ctx, "pg_wal_replay_pause")
}

// ResumeReplay resumes the replay PauseReplay stopped.
func (r *Replicated) ResumeReplay(ctx context.Context) error {
	return r.replay(ctx, "pg_wal_replay_resume")
}

func (r *Replicated) replay(ctx context.Context, fn string) error {
	// A pause takes effect before the next record is replayed.
	if _, err := r.replica.ExecContext(ctx, `SELECT `+fn+`()`); err != nil {
		return fmt.Errorf("storetest: %s: %w", fn, err)
	}
	return nil
}

// Replica returns a pool on the replica, for reads a test checks directly.
func (r *Replicated) Replica() *sql.DB { return r.replica }

// Open returns a fresh, migrated store on the primary that reads from the
// replica (store.Options.ReadURL), once the replica has replayed the
// migrations; it is closed when the test ends. Options without a logger
// log to t.
func (r *Replicated) Open(opts store.Options) *store.DB {
	r.t.Helper()
	ctx := context.Background()
	opts.ReadURL = r.ReplicaURL
	if opts.Logger == nil {
		opts.Logger = Logger(r.t)
	}
	db, err := store.Open(ctx, r.PrimaryURL, opts)
	if err != nil {
		r.t.Fatalf("storetest: %v", err)
	}
	r.t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		r.t.Fatalf("storetest: %v", err)
	}
	if err := r.Sync(ctx); err != nil {
		r.t.Fatalf("storetest: %v", err)
	}
	return db
}
