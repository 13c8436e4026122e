package keyring

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/remnant/passportkit/passport"
)

// MaxKeyFile bounds a private key file, as the passport command bounds it.
const MaxKeyFile = 16 << 10

// ErrLoosePermissions is returned, wrapped in a [*PermissionError], for a
// key file or key directory that its group or others may read.
var ErrLoosePermissions = errors.New("keyring: key material is readable by group or others")

// PermissionError names a key file or directory whose mode lets others
// read it, and the command that fixes it.
type PermissionError struct {
	Path string
	Mode fs.FileMode
	Dir  bool
}

// Error says which path is exposed and how to fix it.
func (e *PermissionError) Error() string {
	what, fix := "key file", "chmod 600"
	if e.Dir {
		what, fix = "key directory", "chmod 700"
	}
	return fmt.Sprintf("keyring: %s %s has mode %04o, readable by group or others: run `%s %s` (and check who has read it)",
		what, e.Path, e.Mode.Perm(), fix, e.Path)
}

// Unwrap returns [ErrLoosePermissions].
func (e *PermissionError) Unwrap() error { return ErrLoosePermissions }

// ErrPrivateKeyMissing is returned when a key's private half is in
// neither the key directory nor the key file.
var ErrPrivateKeyMissing = errors.New("keyring: private key not found")

// checkMode refuses a file or directory with any group or other permission
// bit set.
func checkMode(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o077 != 0 {
		return &PermissionError{Path: path, Mode: fi.Mode(), Dir: fi.IsDir()}
	}
	return nil
}

// keyPath is where the private half of kid lives in dir. A kid is a
// base64url thumbprint, so it is a safe file name; anything else is
// refused before it reaches the file system.
func keyPath(dir, kid string) (string, error) {
	if len(kid) != 43 {
		return "", fmt.Errorf("keyring: %q is not a key id (an RFC 7638 thumbprint)", kid)
	}
	for _, c := range kid {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", fmt.Errorf("keyring: %q is not a key id (an RFC 7638 thumbprint)", kid)
		}
	}
	return filepath.Join(dir, kid+".jwk"), nil
}

// readKeyFile reads a private JWK, refusing a file that is not a regular
// file, is readable by others, or is larger than MaxKeyFile. It reports a
// missing file with fs.ErrNotExist.
func readKeyFile(path string) (*passport.PrivateKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("keyring: key file %s is not a regular file", path)
	}
	if err := checkMode(path, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("keyring: read %s: %w", path, err)
	}
	if len(b) > MaxKeyFile {
		return nil, fmt.Errorf("keyring: key file %s is larger than %d bytes", path, MaxKeyFile)
	}
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	k, err := passport.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("keyring: key file %s: %w", path, err)
	}
	return k, nil
}

// checkDir refuses a key directory readable by others. A missing directory
// is not an error here.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("keyring: key directory %s is not a directory", dir)
	}
	return checkMode(dir, fi)
}

// tempSuffix names a private key file written before its record
// committed: <kid>.jwk.tmp. It becomes <kid>.jwk once the record has
// committed, and is removed when the record never does.
const tempSuffix = ".tmp"

// writeTempKey writes k to dir as <kid>.jwk.tmp, mode 0600, creating dir
// with mode 0700 when missing, and syncs the file and the directory: a
// record committed after it never outlives the file, whatever stops the
// process. An earlier temporary file of the same key is replaced. It
// leaves nothing behind when it fails.
func writeTempKey(dir string, k *passport.PrivateKey) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keyring: create key directory: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return err
	}
	path, err := keyPath(dir, k.Public().KeyID())
	if err != nil {
		return err
	}
	b, err := k.MarshalJSON()
	if err != nil {
		return err
	}
	path += tempSuffix
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("keyring: write key: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Chmod(0o600) // whatever the umask did
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("keyring: write key: %w", err)
	}
	return nil
}

// settleKeyFile renames the temporary file of kid in dir to its key file
// and syncs the directory, returning the key file's path. A temporary
// file that another process renamed first is no error: the key file is
// there.
func settleKeyFile(dir, kid string) (string, error) {
	path, err := keyPath(dir, kid)
	if err != nil {
		return "", err
	}
	err = os.Rename(path+tempSuffix, path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(path); serr == nil {
			err = nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("keyring: keep key file: %w", err)
	}
	reached(stepRenamed)
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("keyring: keep key file: %w", err)
	}
	return path, nil
}

// removeTempKey removes the temporary file of kid in dir, if any.
func removeTempKey(dir, kid string) error {
	path, err := keyPath(dir, kid)
	if err != nil {
		return err
	}
	if err := os.Remove(path + tempSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("keyring: remove temporary key file: %w", err)
	}
	return nil
}

// tempKeys returns the kids of the temporary key files in dir; none when
// dir is missing. Other files are none of its business.
func tempKeys(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keyring: read key directory: %w", err)
	}
	var kids []string
	for _, e := range entries {
		kid, ok := strings.CutSuffix(e.Name(), ".jwk"+tempSuffix)
		if _, err := keyPath(dir, kid); ok && err == nil && e.Type().IsRegular() {
			kids = append(kids, kid)
		}
	}
	return kids, nil
}

// syncDir makes the entries of dir (a file created, renamed or removed)
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// The steps of recording a new key's private half, in order. Between two
// of them the process may stop (kill -9, a crash, a power cut); the next
// keyring to use the key directory finds old state or new, never a key
// file without a record or a record without its key file (see
// [Keyring.reconcile]).
const (
	// stepWritten: the temporary file is synced; the record is not yet
	// written (its transaction is open).
	stepWritten = "written"
	// stepCommitted: the record has committed; the file has its
	// temporary name.
	stepCommitted = "committed"
	// stepRenamed: the file has its name; the directory is not yet
	// synced.
	stepRenamed = "renamed"
)

// atStep is nil except in tests, which set it to stop the process at a
// step.
var atStep func(step string)

// reached calls atStep, when set, at step.
func reached(step string) {
	if atStep != nil {
		atStep(step)
	}
}
