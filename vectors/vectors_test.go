package vectors

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/remnant/passportkit/passport"
)

var update = flag.Bool("update", false, "rewrite testdata from the generator")

// TestUpToDate regenerates the vectors and compares them with the shipped
// files, byte for byte: the generator is deterministic and the files are
// current. Run with -update to rewrite them.
func TestUpToDate(t *testing.T) {
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.RemoveAll("testdata"); err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			p := filepath.Join("testdata", filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	shipped := 0
	err = fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		shipped++
		want, ok := files[p]
		if !ok {
			t.Errorf("%s is shipped but not generated", p)
			return nil
		}
		got, err := fs.ReadFile(FS, p)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output; run go test ./vectors -update", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if shipped != len(files) {
		t.Errorf("%d files shipped, %d generated; run go test ./vectors -update", shipped, len(files))
	}
}

func TestEnoughCases(t *testing.T) {
	_, cases, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	var valid, invalid, presentedValid, presentedInvalid int
	reasons := map[string]bool{}
	for _, c := range cases {
		if c.Verified {
			valid++
		} else {
			invalid++
			reasons[c.Reason] = true
		}
		if c.PresentedTo != nil && c.Verified {
			presentedValid++
		} else if c.PresentedTo != nil {
			presentedInvalid++
		}
	}
	if valid < 10 || invalid < 50 || len(reasons) < 25 {
		t.Errorf("%d valid, %d invalid cases covering %d reasons", valid, invalid, len(reasons))
	}
	if presentedValid < 4 || presentedInvalid < 20 {
		t.Errorf("%d valid and %d invalid presentations", presentedValid, presentedInvalid)
	}
}

// TestAssemblerMatchesSigner checks that the generator's hand assembly of a
// bundle is byte-identical to passport.Signer's, so the negative cases
// differ from real bundles only where they mean to.
func TestAssemblerMatchesSigner(t *testing.T) {
	f, err := newFixture()
	if err != nil {
		t.Fatal(err)
	}
	d := f.newDraft(nil, baseRecords())
	want, err := f.signed(f.ed, basePassport(), baseRecords(), d.disclose)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.bytes(); !bytes.Equal(got, want) {
		t.Errorf("assembled bundle differs from the signer's:\n%s\n%s", got, want)
	}
	d.key = f.es
	want, err = f.signed(f.es, basePassport(), baseRecords(), d.disclose)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.bytes(); !bytes.Equal(got, want) {
		t.Errorf("assembled ES256 bundle differs from the signer's")
	}
	for _, p := range []*passport.Passport{claimsPassport(false, false), claimsPassport(true, true)} {
		d = f.newClaimsDraft(p, baseRecords())
		want, err = f.signed(f.ed, p, baseRecords(), d.disclose)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.bytes(); !bytes.Equal(got, want) {
			t.Errorf("assembled 0.2 bundle differs from the signer's:\n%s\n%s", got, want)
		}
	}
}

// TestPresentationAssemblerMatchesPresent checks that the generator's hand
// assembly of a presentation is byte-identical to passport.Present's, for
// each algorithm of holder key, so the negative cases differ from real
// presentations only where they mean to.
func TestPresentationAssemblerMatchesPresent(t *testing.T) {
	f, err := newFixture()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []*passport.PrivateKey{f.holder1, f.holderES} {
		d := f.present()
		d.key = key
		want, err := passport.Present(d.bundle, key, verifierAudience, vectorNonce, presentedAt)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.bytes(); !bytes.Equal(got, want) {
			t.Errorf("%s: assembled presentation differs from Present's:\n%s\n%s", key.Public().Algorithm(), got, want)
		}
	}
}
