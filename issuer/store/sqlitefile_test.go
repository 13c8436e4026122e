//go:build unix

package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// openSQLite opens the SQLite file at path, logging to t.
func openSQLite(t *testing.T, path string) (*store.DB, error) {
	t.Helper()
	return store.Open(context.Background(), path, store.Options{Logger: storetest.Logger(t)})
}

// migrated opens the SQLite file at path and migrates it, so that it has
// its -wal and -shm files until the returned store is closed.
func migrated(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := openSQLite(t, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// A new SQLite database, its WAL file and its shared-memory file have mode
// 0600 under any umask: the widest (none), the usual one and a strict one.
// It does not run in parallel: the umask belongs to the process.
func TestSQLiteFilesArePrivate(t *testing.T) {
	for _, umask := range []int{0o000, 0o022, 0o077} {
		t.Run(fmt.Sprintf("umask %04o", umask), func(t *testing.T) {
			defer syscall.Umask(syscall.Umask(umask))
			path := filepath.Join(t.TempDir(), "issuer.db")
			migrated(t, path)
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("%s has mode %04o, want 0600", filepath.Base(p), fi.Mode().Perm())
				}
			}
		})
	}
}

// A database file, WAL file or shared-memory file that group or others may
// read or write is refused, naming every such file, its mode and the chmod
// that fixes it; after the chmod the database opens.
func TestSQLiteLooseFilesRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		modes map[string]fs.FileMode // by suffix
	}{
		{"database readable by group and others", map[string]fs.FileMode{"": 0o644}},
		{"database readable by group", map[string]fs.FileMode{"": 0o640}},
		{"database readable by others", map[string]fs.FileMode{"": 0o604}},
		{"database writable by group", map[string]fs.FileMode{"": 0o620}},
		{"database writable by others", map[string]fs.FileMode{"": 0o602}},
		{"WAL readable by others", map[string]fs.FileMode{"-wal": 0o604}},
		{"shared memory writable by group", map[string]fs.FileMode{"-shm": 0o660}},
		{"all three", map[string]fs.FileMode{"": 0o644, "-wal": 0o644, "-shm": 0o644}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "issuer.db")
			migrated(t, path) // kept open, so that its -wal and -shm files stay
			var files []string
			for _, s := range []string{"", "-wal", "-shm"} {
				if m, ok := c.modes[s]; ok {
					if err := os.Chmod(path+s, m); err != nil {
						t.Fatal(err)
					}
					files = append(files, path+s)
				}
			}
			_, err := openSQLite(t, path)
			var pe *store.PermissionError
			if !errors.As(err, &pe) || !errors.Is(err, store.ErrLoosePermissions) {
				t.Fatalf("open: %v, want a permission error", err)
			}
			var got []string
			for _, f := range pe.Files {
				got = append(got, f.Path)
				if f.Mode.Perm() != c.modes[strings.TrimPrefix(f.Path, path)] {
					t.Errorf("%s: mode %04o reported", f.Path, f.Mode.Perm())
				}
			}
			if !slices.Equal(got, files) {
				t.Fatalf("refused %v, want %v", got, files)
			}
			msg := err.Error()
			for _, f := range pe.Files {
				if !strings.Contains(msg, fmt.Sprintf("%s has mode %04o", f.Path, f.Mode.Perm())) {
					t.Errorf("the message does not name %s and its mode: %s", f.Path, msg)
				}
			}
			if !strings.Contains(msg, "run `chmod 600 "+strings.Join(files, " ")+"`") {
				t.Errorf("the message does not give the fix: %s", msg)
			}
			for _, f := range files {
				if err := os.Chmod(f, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			db, err := openSQLite(t, path)
			if err != nil {
				t.Fatalf("after chmod 600: %v", err)
			}
			db.Close()
		})
	}
}

// Names that are not a plain file path are refused before SQLite sees
// them: a directory, an in-memory database and a URI.
func TestSQLiteUnusablePathsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, path := range []string{dir, ":memory:", "file:" + filepath.Join(dir, "issuer.db"), "sqlite::memory:"} {
		if db, err := openSQLite(t, path); err == nil {
			db.Close()
			t.Errorf("%s opened", path)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("refusals left %v (%v)", entries, err)
	}
}
