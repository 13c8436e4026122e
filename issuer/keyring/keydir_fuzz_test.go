package keyring

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/passport"
)

// FuzzKeyPath checks the one gate between a key id and the file system: a
// kid it accepts names a file directly inside the key directory, whatever
// the kid holds.
func FuzzKeyPath(f *testing.F) {
	for _, s := range []string{strings.Repeat("A", 43), strings.Repeat("-", 43), "../" + strings.Repeat("a", 40),
		strings.Repeat("a", 42) + "/", strings.Repeat("a", 44), "", strings.Repeat("é", 21) + "a", strings.Repeat("a", 42) + "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kid string) {
		dir := filepath.Join("keys", "dir")
		p, err := keyPath(dir, kid)
		if err != nil {
			return
		}
		if filepath.Dir(p) != dir || filepath.Base(p) != kid+".jwk" {
			t.Fatalf("kid %q gives the path %q, outside %s", kid, p, dir)
		}
	})
}

// FuzzReadKeyFile checks reading a key directory entry on any bytes: it
// never panics, refuses a file over MaxKeyFile, and a key it accepts is a
// private key whose signature its public half verifies.
func FuzzReadKeyFile(f *testing.F) {
	k, err := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{3}, 32))
	if err != nil {
		f.Fatal(err)
	}
	good, err := k.MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	pub, _ := k.Public().MarshalJSON()
	for _, s := range [][]byte{good, append(bytes.Clone(good), "\r\n\n"...), pub, []byte("{}"), bytes.Repeat([]byte(" "), MaxKeyFile+1),
		bytes.Replace(good, []byte(`"d":"`), []byte(`"d":"A`), 1)} {
		f.Add(s)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "k.jwk")
	f.Fuzz(func(t *testing.T, in []byte) {
		if err := os.WriteFile(path, in, 0o600); err != nil {
			t.Fatal(err)
		}
		key, err := readKeyFile(path)
		if err != nil {
			return
		}
		if len(in) > MaxKeyFile {
			t.Fatalf("a key file of %d bytes was read", len(in))
		}
		if key == nil || key.Public().KeyID() == "" {
			t.Fatal("a key without a key id")
		}
	})
}
