package keyring

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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

// writeKeyFile writes k to dir as <kid>.jwk, mode 0600, creating dir with
// mode 0700 when missing. It never overwrites a file, and leaves nothing
// behind when it fails.
func writeKeyFile(dir string, k *passport.PrivateKey) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("keyring: create key directory: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	path, err := keyPath(dir, k.Public().KeyID())
	if err != nil {
		return "", err
	}
	b, err := k.MarshalJSON()
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("keyring: write key: %w", err)
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
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("keyring: write key: %w", err)
	}
	return path, nil
}
