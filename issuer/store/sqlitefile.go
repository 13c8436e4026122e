package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ErrLoosePermissions is returned, wrapped in a [*PermissionError], for a
// SQLite database file, or its WAL or shared-memory file, that its group or
// others may read or write: the database holds private memories.
var ErrLoosePermissions = errors.New("store: the database file is open to group or others")

// PermissionError names the SQLite files whose mode lets group or others
// read or write them, and the command that fixes it.
type PermissionError struct {
	// Files are the loose files: the database file, its -wal file and its
	// -shm file, in that order, each only when it is loose.
	Files []LooseFile
}

// LooseFile is a file open to group or others, and its mode.
type LooseFile struct {
	Path string
	Mode fs.FileMode
}

// Error says which files are exposed and how to fix them.
func (e *PermissionError) Error() string {
	modes := make([]string, len(e.Files))
	paths := make([]string, len(e.Files))
	for i, f := range e.Files {
		modes[i] = fmt.Sprintf("%s has mode %04o", f.Path, f.Mode.Perm())
		paths[i] = f.Path
	}
	return fmt.Sprintf("store: database file %s, readable or writable by group or others: run `chmod 600 %s` (and check who has read it)",
		strings.Join(modes, ", "), strings.Join(paths, " "))
}

// Unwrap returns [ErrLoosePermissions].
func (e *PermissionError) Unwrap() error { return ErrLoosePermissions }

// sqliteSidecars are the suffixes of the files SQLite keeps beside a
// database in WAL mode. SQLite creates them with the database file's mode.
var sqliteSidecars = []string{"-wal", "-shm"}

// prepareSQLiteFile makes the database file at path private before SQLite
// opens it: a missing file is created with mode 0600, whatever the umask,
// so that SQLite (which gives its WAL and shared-memory files the database
// file's mode) never writes private content into a file others may read;
// an existing file, WAL file or shared-memory file that group or others
// may read or write is refused with a [*PermissionError].
func prepareSQLiteFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		err = f.Chmod(0o600) // a umask can narrow 0600 below what SQLite needs
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("store: create %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("store: database file %s is not a regular file", path)
	}
	var loose []LooseFile
	if fi.Mode().Perm()&0o077 != 0 {
		loose = append(loose, LooseFile{Path: path, Mode: fi.Mode()})
	}
	for _, s := range sqliteSidecars {
		fi, err := os.Stat(path + s)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			loose = append(loose, LooseFile{Path: path + s, Mode: fi.Mode()})
		}
	}
	if len(loose) > 0 {
		return &PermissionError{Files: loose}
	}
	return nil
}
