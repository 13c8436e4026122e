package vectors

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"

	"github.com/remnant/passportkit/passport"
)

// A trust-file case is a trust file of one Ed25519 key whose x is given
// in hex (32 bytes, as RFC 8032 encodes the point): SPEC.md §8 and §10
// say whether a verifier accepts the file. Names ending in _fail are
// files a verifier refuses.
var trustFileCases = []struct{ name, x string }{
	{"small_order_identity_fail", "01" + strings.Repeat("00", 31)},
	{"small_order_identity_sign_bit_fail", "01" + strings.Repeat("00", 30) + "80"},
	{"small_order_minus_one_sign_bit_fail", "ec" + strings.Repeat("ff", 31)},
	{"small_order_order_4_fail", strings.Repeat("00", 32)},
	{"small_order_order_8_fail", "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"},
	{"small_order_y_above_p_fail", "ee" + strings.Repeat("ff", 30) + "7f"},
	{"key_not_a_point", "02" + strings.Repeat("00", 31)},
	{"key_y_above_p", "f0" + strings.Repeat("ff", 30) + "7f"},
}

// trustFileDir holds the trust-file cases within FS.
const trustFileDir = "trustfiles"

// trustFiles returns the trust-file cases, keyed by path relative to FS.
func trustFiles() map[string][]byte {
	files := map[string][]byte{}
	for _, c := range trustFileCases {
		x, err := hex.DecodeString(c.x)
		if err != nil || len(x) != 32 {
			panic("vectors: trust file " + c.name + ": x is not 32 bytes of hex")
		}
		xb := base64.RawURLEncoding.EncodeToString(x)
		// The RFC 7638 thumbprint of an OKP key: its required members,
		// in canonical JSON.
		sum := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + xb + `"}`))
		kid := base64.RawURLEncoding.EncodeToString(sum[:])
		b, err := passport.Marshal(map[string]any{"issuer": Issuer, "trustVersion": "1.0",
			"keys": []any{map[string]any{"alg": "EdDSA", "crv": "Ed25519", "kid": kid, "kty": "OKP", "use": "sig", "x": xb}}})
		if err != nil {
			panic(err)
		}
		files[path.Join(trustFileDir, c.name+".json")] = b
	}
	return files
}

// TrustFile is a trust-file case: a trust file and whether a verifier
// accepts it.
type TrustFile struct {
	// Name is the file name without .json.
	Name string
	// Accepted says whether a verifier accepts the file.
	Accepted bool
	// File is the trust file, byte for byte.
	File []byte
}

// LoadTrustFiles reads the trust-file cases from fsys, in name order.
func LoadTrustFiles(fsys fs.FS) ([]TrustFile, error) {
	entries, err := fs.ReadDir(fsys, trustFileDir)
	if err != nil {
		return nil, err
	}
	var out []TrustFile
	for _, e := range entries {
		b, err := fs.ReadFile(fsys, path.Join(trustFileDir, e.Name()))
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(e.Name(), ".json")
		out = append(out, TrustFile{Name: name, Accepted: !strings.HasSuffix(name, "_fail"), File: b})
	}
	return out, nil
}
