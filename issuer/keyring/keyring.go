// Package keyring manages the issuer's signing keys: private halves in a
// key directory (or one key file named by the environment), public halves,
// windows and status in the database, and the documents that publish them.
//
// # Files
//
// Each private key is a private JWK (as [passport.PrivateKey.MarshalJSON]
// writes it) in <dir>/<kid>.jwk, where kid is the key's RFC 7638
// thumbprint. Key files have mode 0600 and the directory 0700; a key file
// or directory that the group or others may read is refused with a
// [*PermissionError] naming the path and the chmod that fixes it. A key
// file is at most [MaxKeyFile] bytes.
//
// # Life of a key
//
// A key is ready, active or retired ([issuer.KeyStatus]). Exactly one key is
// active at a time; [Keyring.Active] returns its signer, which is what the
// issuing code signs passports with. [Keyring.Rotate] activates a new key
// and retires the previous one: the old key's window closes at the
// rotation time (notAfter) and it stays published until notAfter +
// MaxPassportTTL + [verifier.MaxSkew], so every passport it signed keeps
// verifying until that passport has expired under any skew a verifier may
// allow. A key whose private half is missing cannot be made active.
//
// # Published documents
//
// [Keyring.TrustFile] is the SPEC §10 trust file for this issuer (what
// `passport verify --trust` reads) and [Keyring.JWKS] the same keys as a
// plain JWK set. Both list the published keys, oldest window first, and are
// byte-for-byte the same for the same state and time, whoever writes them.
package keyring

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// DefaultDir is the key directory used when none is configured.
const DefaultDir = "passportkit-keys"

// Passport lifetimes. The issuing code signs passports valid for
// DefaultPassportTTL unless asked otherwise, and never for longer than the
// keyring's MaxPassportTTL: a retired key's publication is computed from
// it.
const (
	DefaultPassportTTL    = 24 * time.Hour
	DefaultMaxPassportTTL = 30 * 24 * time.Hour
)

// Store is what the keyring needs from the database.
type Store interface {
	SigningKeys(ctx context.Context) ([]issuer.SigningKey, error)
	AddSigningKey(ctx context.Context, k store.NewSigningKey) (issuer.SigningKey, error)
	ActivateSigningKey(ctx context.Context, k store.NewSigningKey, publishFor time.Duration) (store.KeyChange, error)
	ActivateFirstSigningKey(ctx context.Context, k store.NewSigningKey) (issuer.SigningKey, bool, error)
	RetireSigningKey(ctx context.Context, kid string, publishFor time.Duration) (issuer.SigningKey, error)
}

var _ Store = (*store.DB)(nil)

// Config configures a [Keyring]. Only Issuer is required.
type Config struct {
	// Issuer is the issuer identifier passports name and the trust file
	// pins (SPEC §3, §10).
	Issuer string
	// Dir is the key directory; DefaultDir when empty.
	Dir string
	// KeyFile, when set, names one more private key file, for a key kept
	// outside the directory (a mounted secret). The same permission rule
	// applies.
	KeyFile string
	// MaxPassportTTL is the longest validity the issuer gives a passport;
	// DefaultMaxPassportTTL when zero.
	MaxPassportTTL time.Duration
	// Now is the clock for publication; time.Now when nil. The store keeps
	// its own clock for the windows it writes.
	Now func() time.Time
	// Rand is the source of new keys; crypto/rand when nil.
	Rand io.Reader
}

// Keyring is the issuer's set of signing keys. It is safe for concurrent
// use.
type Keyring struct {
	st  Store
	cfg Config

	mu      sync.Mutex
	private map[string]*passport.PrivateKey
}

// New returns a keyring over st. It touches neither the database nor the
// files: the first call that needs them does.
func New(st Store, cfg Config) (*Keyring, error) {
	if strings.TrimSpace(cfg.Issuer) == "" {
		return nil, errors.New("keyring: an issuer identifier is required")
	}
	if cfg.Dir == "" {
		cfg.Dir = DefaultDir
	}
	if cfg.MaxPassportTTL == 0 {
		cfg.MaxPassportTTL = DefaultMaxPassportTTL
	}
	if cfg.MaxPassportTTL < 0 {
		return nil, fmt.Errorf("keyring: maximum passport TTL %v is negative", cfg.MaxPassportTTL)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	return &Keyring{st: st, cfg: cfg, private: map[string]*passport.PrivateKey{}}, nil
}

// Issuer returns the issuer identifier.
func (r *Keyring) Issuer() string { return r.cfg.Issuer }

// Dir returns the key directory.
func (r *Keyring) Dir() string { return r.cfg.Dir }

// MaxPassportTTL returns the longest validity a passport may be given.
func (r *Keyring) MaxPassportTTL() time.Duration { return r.cfg.MaxPassportTTL }

// PublishFor is how long a retired key stays published after its window
// closes: the longest passport lifetime plus the largest clock skew a
// verifier may tolerate.
func (r *Keyring) PublishFor() time.Duration { return r.cfg.MaxPassportTTL + verifier.MaxSkew }

// ErrNoActiveKey is returned (inside an [*issuer.Error] with code
// unavailable) when no key is active.
var ErrNoActiveKey = errors.New("keyring: no active signing key")

// Active returns a signer for the active key; its Key().KeyID() is the kid
// the JWS header will carry. Passports it signs must have an issuedAt
// within the key's window (from NotBefore of the returned record on) and
// a lifetime of at most MaxPassportTTL. Without an active key, or when the
// active key's private half is missing or exposed, it fails with an
// [*issuer.Error] of code unavailable that says what to do.
func (r *Keyring) Active(ctx context.Context) (*passport.Signer, issuer.SigningKey, error) {
	keys, err := r.st.SigningKeys(ctx)
	if err != nil {
		return nil, issuer.SigningKey{}, err
	}
	i := slices.IndexFunc(keys, func(k issuer.SigningKey) bool { return k.Status == issuer.KeyActive })
	if i < 0 {
		return nil, issuer.SigningKey{}, &issuer.Error{Code: issuer.CodeUnavailable,
			Message: "the issuer has no active signing key: run `passport-issuer keys rotate`", Err: ErrNoActiveKey}
	}
	priv, err := r.privateKey(keys[i].KID)
	if err != nil {
		return nil, issuer.SigningKey{}, &issuer.Error{Code: issuer.CodeUnavailable,
			Message: "the active signing key " + keys[i].KID + " cannot be used", Err: err}
	}
	return passport.NewSigner(priv), keys[i], nil
}

// privateKey returns the private half of kid from the key file or the key
// directory, caching it. It fails with ErrPrivateKeyMissing when neither
// holds it, and with a *PermissionError when a file or the directory is
// exposed.
func (r *Keyring) privateKey(kid string) (*passport.PrivateKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if k, ok := r.private[kid]; ok {
		return k, nil
	}
	if r.cfg.KeyFile != "" {
		k, err := readKeyFile(r.cfg.KeyFile)
		if err != nil {
			return nil, err
		}
		if k.Public().KeyID() == kid {
			r.private[kid] = k
			return k, nil
		}
	}
	path, err := keyPath(r.cfg.Dir, kid)
	if err != nil {
		return nil, err
	}
	if err := checkDir(r.cfg.Dir); err != nil {
		return nil, err
	}
	k, err := readKeyFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		where := path
		if r.cfg.KeyFile != "" {
			where += " or " + r.cfg.KeyFile
		}
		return nil, fmt.Errorf("%w: key %s is not in %s", ErrPrivateKeyMissing, kid, where)
	}
	if err != nil {
		return nil, err
	}
	if k.Public().KeyID() != kid {
		return nil, fmt.Errorf("keyring: key file %s holds key %s, not %s", path, k.Public().KeyID(), kid)
	}
	r.private[kid] = k
	return k, nil
}

// newKey draws a key for alg and writes it to the key directory.
func (r *Keyring) newKey(alg passport.Algorithm) (*passport.PrivateKey, string, error) {
	k, err := passport.GenerateKey(alg, r.cfg.Rand)
	if err != nil {
		return nil, "", err
	}
	path, err := writeKeyFile(r.cfg.Dir, k)
	if err != nil {
		return nil, "", err
	}
	return k, path, nil
}

func record(k *passport.PrivateKey) (store.NewSigningKey, error) {
	pub, err := k.Public().MarshalJSON()
	if err != nil {
		return store.NewSigningKey{}, err
	}
	pub, err = passport.Canonicalize(pub)
	if err != nil {
		return store.NewSigningKey{}, err
	}
	return store.NewSigningKey{KID: k.Public().KeyID(), Alg: string(k.Public().Algorithm()), PublicJWK: string(pub)}, nil
}

// Generated is a key written to the key directory and recorded.
type Generated struct {
	Key  issuer.SigningKey
	Path string // the private key file
}

// Generate creates a key for alg, writes its private half to the key
// directory and records it as ready: neither signing nor published until
// [Keyring.Rotate] activates it. When recording fails the file is removed.
func (r *Keyring) Generate(ctx context.Context, alg passport.Algorithm) (Generated, error) {
	k, path, err := r.newKey(alg)
	if err != nil {
		return Generated{}, err
	}
	rec, err := record(k)
	if err == nil {
		var sk issuer.SigningKey
		if sk, err = r.st.AddSigningKey(ctx, rec); err == nil {
			return Generated{Key: sk, Path: path}, nil
		}
	}
	os.Remove(path)
	return Generated{}, err
}

// Rotation is the outcome of [Keyring.Rotate].
type Rotation struct {
	store.KeyChange
	// Path is the private key file of a key generated by the rotation;
	// empty when an existing key was activated.
	Path string
}

// Rotate makes a key active and retires the active one, in one
// transaction. With kid empty it generates a new key for alg first (and
// removes its file again if the rotation fails); otherwise it activates the
// ready key kid, or records and activates a key found only in the key
// directory or key file. The private half must be available: a key that
// cannot sign is never made active. A rotation that would publish more
// than [verifier.MaxTrustedKeys] keys is refused.
func (r *Keyring) Rotate(ctx context.Context, kid string, alg passport.Algorithm) (Rotation, error) {
	var (
		k    *passport.PrivateKey
		path string
		err  error
	)
	if kid == "" {
		if k, path, err = r.newKey(alg); err != nil {
			return Rotation{}, err
		}
	} else if k, err = r.privateKey(kid); err != nil {
		return Rotation{}, &issuer.Error{Code: issuer.CodeConflict,
			Message: "key " + kid + " cannot be made active: its private half is not usable", Err: err}
	}
	rec, err := record(k)
	if err == nil {
		err = r.roomToPublish(ctx)
	}
	var change store.KeyChange
	if err == nil {
		change, err = r.st.ActivateSigningKey(ctx, rec, r.PublishFor())
	}
	if err != nil {
		if path != "" {
			os.Remove(path)
		}
		return Rotation{}, err
	}
	return Rotation{KeyChange: change, Path: path}, nil
}

// roomToPublish refuses a rotation that would publish more keys than a
// trust file may hold: the active key stays published as a retired one,
// so a rotation adds one key to publication.
func (r *Keyring) roomToPublish(ctx context.Context) error {
	keys, err := r.st.SigningKeys(ctx)
	if err != nil {
		return err
	}
	now, n := r.cfg.Now(), 0
	for _, k := range keys {
		if k.PublishedAt(now) {
			n++
		}
	}
	if n >= verifier.MaxTrustedKeys {
		return issuer.Errorf(issuer.CodeConflict, "%d keys are published and a trust file holds at most %d: wait for retired keys to leave publication, or withdraw some with `keys retire --withdraw`", n, verifier.MaxTrustedKeys)
	}
	return nil
}

// EnsureActive checks that a usable key is active. When none is active it
// generates one for alg and activates it, unless another process activated
// one first, and returns what it created; otherwise it returns nil. It
// fails when the active key's private half is not usable. Development
// start-up calls it; production start-up calls [Keyring.Active] only.
func (r *Keyring) EnsureActive(ctx context.Context, alg passport.Algorithm) (*Generated, error) {
	_, _, err := r.Active(ctx)
	if !errors.Is(err, ErrNoActiveKey) {
		return nil, err
	}
	k, path, err := r.newKey(alg)
	if err != nil {
		return nil, err
	}
	rec, err := record(k)
	var (
		sk        issuer.SigningKey
		activated bool
	)
	if err == nil {
		sk, activated, err = r.st.ActivateFirstSigningKey(ctx, rec)
	}
	if err != nil || !activated {
		os.Remove(path)
		if err != nil {
			return nil, err
		}
		_, _, err = r.Active(ctx)
		return nil, err
	}
	return &Generated{Key: sk, Path: path}, nil
}

// Retire takes the key kid out of signing: its window closes now and it
// stays published for PublishFor more, or, with withdraw, leaves
// publication at once (for a key that must no longer be trusted; what it
// signed stops verifying for anyone who fetches the trust file again).
// Retiring the active key leaves no key active.
func (r *Keyring) Retire(ctx context.Context, kid string, withdraw bool) (issuer.SigningKey, error) {
	publishFor := r.PublishFor()
	if withdraw {
		publishFor = 0
	}
	return r.st.RetireSigningKey(ctx, kid, publishFor)
}

// KeyInfo is a recorded key as [Keyring.List] reports it.
type KeyInfo struct {
	issuer.SigningKey
	// Published says whether the key is in the trust file and JWKS now.
	Published bool `json:"published"`
	// Private says where the private half stands: "present", "missing",
	// or "unusable" with the reason in PrivateError.
	Private      string `json:"private"`
	PrivateError string `json:"privateError,omitempty"`
}

// List returns every recorded key, oldest first, with whether it is
// published and whether its private half is available.
func (r *Keyring) List(ctx context.Context) ([]KeyInfo, error) {
	keys, err := r.st.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	now := r.cfg.Now()
	out := make([]KeyInfo, len(keys))
	for i, k := range keys {
		out[i] = KeyInfo{SigningKey: k, Published: k.PublishedAt(now), Private: "present"}
		if _, err := r.privateKey(k.KID); errors.Is(err, ErrPrivateKeyMissing) {
			out[i].Private = "missing"
		} else if err != nil {
			out[i].Private, out[i].PrivateError = "unusable", err.Error()
		}
	}
	return out, nil
}
