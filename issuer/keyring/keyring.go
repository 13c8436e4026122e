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
// A new key's private half is written as <kid>.jwk.tmp and synced (file
// and directory) inside the transaction that records the key, once the
// keys are locked, and renamed to <kid>.jwk after the record commits. The
// first use of the key directory by a keyring, and a keyring that finds a
// recorded key's file missing beside its temporary one, settle what a
// stopped process left, under the same lock: a temporary file whose key
// is recorded is renamed, one whose key is not is removed. Stopped at any
// point, a rotation leaves the old state or the new one, never a key file
// without a record nor a record without its file.
//
// # Life of a key
//
// A key is ready, active or retired ([issuer.KeyStatus]). Exactly one key is
// active at a time; [Keyring.Active] returns its signer. [Keyring.Rotate]
// activates a new key and retires the previous one: the old key's window
// closes at the rotation time (notAfter) and it stays published until
// notAfter + MaxPassportTTL + [verifier.MaxSkew], so every passport it
// signed keeps verifying until that passport has expired under any skew a
// verifier may allow. A key whose private half is missing cannot be made
// active.
//
// [Keyring.SigningNow] decides the signing key and the issue time
// together, while no key change can commit, so a passport issued at that
// time lies inside its key's window whatever rotation runs meanwhile.
// Every key change replaces the store's keys epoch, which the issuing
// code's cache is keyed by: after [Keyring.Retire] withdraws a key, no
// process serves a passport it cached before.
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

// Store is what the keyring needs from the database: the records of the
// keys' public halves, windows and status. issuer/store implements it for
// both engines.
type Store interface {
	// SigningKeys returns every recorded key, oldest first.
	SigningKeys(ctx context.Context) ([]issuer.SigningKey, error)
	// ActiveSigningKey returns the active key and the current time, taken
	// while no key change can commit; not_found when no key is active.
	ActiveSigningKey(ctx context.Context) (issuer.SigningKey, time.Time, error)
	// AddSigningKey records k as a ready key; a kid already recorded is a
	// conflict.
	AddSigningKey(ctx context.Context, k KeyRecord) (issuer.SigningKey, error)
	// ActivateSigningKey makes k the active key, recording it first when
	// it is unknown, and retires the key active until now, published for
	// publishFor more, in one transaction that changes the keys epoch.
	ActivateSigningKey(ctx context.Context, k KeyRecord, publishFor time.Duration) (KeyChange, error)
	// ActivateFirstSigningKey records and activates k only when no key is
	// active, and reports whether it did.
	ActivateFirstSigningKey(ctx context.Context, k KeyRecord) (issuer.SigningKey, bool, error)
	// RetireSigningKey takes the key kid out of signing, published for
	// publishFor more (zero withdraws it at once), in one transaction that
	// changes the keys epoch.
	RetireSigningKey(ctx context.Context, kid string, publishFor time.Duration) (issuer.SigningKey, error)
	// WithSigningKeysLocked runs fn with every recorded key while no key
	// can be recorded or changed.
	WithSigningKeysLocked(ctx context.Context, fn func([]issuer.SigningKey) error) error
}

// KeyRecord is the public half of a signing key to record.
type KeyRecord struct {
	KID       string // RFC 7638 thumbprint
	Alg       string // EdDSA or ES256
	PublicJWK string // canonical public JWK
	// Prepare, when set, runs inside the recording transaction once the
	// keys are locked and just before the record is written: the keyring
	// writes the private half there, under a temporary name, so that
	// whoever reconciles the key directory under the same lock
	// ([Store.WithSigningKeysLocked]) never meets a file whose record may
	// still commit. An error rolls the transaction back; a retried
	// transaction runs it again.
	Prepare func() error
}

// KeyChange is the outcome of an activation: the key now active and the
// key it replaced, if any, now retired.
type KeyChange struct {
	Active  issuer.SigningKey
	Retired *issuer.SigningKey
}

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

	dirMu      sync.Mutex
	reconciled bool // the key directory was reconciled with the records
}

// New returns a keyring over st. It touches neither the database nor the
// files: the first call that needs them does, and the first that uses the
// key directory reconciles it with the records ([Keyring.reconcile]).
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
// a lifetime of at most MaxPassportTTL: [Keyring.SigningNow] gives a time
// that is. Without an active key, or when the active key's private half is
// missing or exposed, it fails with an [*issuer.Error] of code unavailable
// that says what to do.
func (r *Keyring) Active(ctx context.Context) (*passport.Signer, issuer.SigningKey, error) {
	keys, err := r.st.SigningKeys(ctx)
	if err != nil {
		return nil, issuer.SigningKey{}, err
	}
	i := slices.IndexFunc(keys, func(k issuer.SigningKey) bool { return k.Status == issuer.KeyActive })
	if i < 0 {
		return nil, issuer.SigningKey{}, errNoActiveKey()
	}
	s, err := r.signer(ctx, keys[i])
	return s, keys[i], err
}

// SigningNow returns the signer of the active key, its record, and the
// time to sign at, decided together: the time was taken while no key
// change could commit, in this process or any other
// ([Store.ActiveSigningKey]), truncated to the second, and is never
// before the key's NotBefore. A passport issued at that time, or later
// within the same decision, lies inside its key's window whatever rotation
// or retirement commits meanwhile (SPEC.md §10.1). Errors are those of
// [Keyring.Active].
func (r *Keyring) SigningNow(ctx context.Context) (*passport.Signer, issuer.SigningKey, time.Time, error) {
	k, at, err := r.st.ActiveSigningKey(ctx)
	if issuer.ErrorCode(err) == issuer.CodeNotFound {
		err = errNoActiveKey()
	}
	if err != nil {
		return nil, issuer.SigningKey{}, time.Time{}, err
	}
	s, err := r.signer(ctx, k)
	if err != nil {
		return nil, issuer.SigningKey{}, time.Time{}, err
	}
	// A process whose clock lags the one that activated the key must not
	// sign before the key's window opens.
	at = at.UTC().Truncate(time.Second)
	if k.NotBefore != nil && at.Before(*k.NotBefore) {
		at = *k.NotBefore
	}
	return s, k, at, nil
}

// errNoActiveKey is the unavailable error of an issuer without an active
// key.
func errNoActiveKey() error {
	return &issuer.Error{Code: issuer.CodeUnavailable,
		Message: "the issuer has no active signing key: run `passport-issuer keys rotate`", Err: ErrNoActiveKey}
}

// signer returns a signer for the active key k, or an unavailable error
// saying why its private half cannot be used.
func (r *Keyring) signer(ctx context.Context, k issuer.SigningKey) (*passport.Signer, error) {
	priv, err := r.privateKey(ctx, k.KID)
	if err != nil {
		return nil, &issuer.Error{Code: issuer.CodeUnavailable,
			Message: "the active signing key " + k.KID + " cannot be used", Err: err}
	}
	return passport.NewSigner(priv), nil
}

// privateKey returns the private half of kid from the key file or the key
// directory, caching it. It fails with ErrPrivateKeyMissing when neither
// holds it, and with a *PermissionError when a file or the directory is
// exposed.
func (r *Keyring) privateKey(ctx context.Context, kid string) (*passport.PrivateKey, error) {
	r.mu.Lock()
	k, ok := r.private[kid]
	r.mu.Unlock()
	if ok {
		return k, nil
	}
	if err := r.openDir(ctx); err != nil {
		return nil, err
	}
	k, err := r.loadPrivateKey(ctx, kid)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.private[kid] = k
	r.mu.Unlock()
	return k, nil
}

// loadPrivateKey reads the private half of kid from the key file or the
// key directory. A key file missing beside its temporary file (a process
// stopped between recording the key and renaming its file) is completed
// first.
func (r *Keyring) loadPrivateKey(ctx context.Context, kid string) (*passport.PrivateKey, error) {
	if r.cfg.KeyFile != "" {
		k, err := readKeyFile(r.cfg.KeyFile)
		if err != nil {
			return nil, err
		}
		if k.Public().KeyID() == kid {
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
	if _, terr := os.Stat(path + tempSuffix); errors.Is(err, fs.ErrNotExist) && terr == nil {
		if err := r.reconcile(ctx); err != nil {
			return nil, err
		}
		k, err = readKeyFile(path)
	}
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
	return k, nil
}

// openDir reconciles the key directory with the records the first time
// the keyring uses it (see [Keyring.reconcile]); a failed reconciliation
// is tried again at the next use.
func (r *Keyring) openDir(ctx context.Context) error {
	r.dirMu.Lock()
	defer r.dirMu.Unlock()
	if r.reconciled {
		return nil
	}
	if err := r.reconcile(ctx); err != nil {
		return err
	}
	r.reconciled = true
	return nil
}

// reconcile settles the temporary key files a stopped process left in the
// key directory, while no key can be recorded or changed
// ([Store.WithSigningKeysLocked]): a file whose key is recorded (the
// process stopped after its record committed) gets its name; one whose
// key is not (its record never committed) is removed. A key being
// recorded by a running process writes its temporary file under the same
// lock, so it is never taken for a stopped one.
func (r *Keyring) reconcile(ctx context.Context) error {
	kids, err := tempKeys(r.cfg.Dir)
	if err != nil || len(kids) == 0 {
		return err
	}
	return r.st.WithSigningKeysLocked(ctx, func(keys []issuer.SigningKey) error {
		for _, kid := range kids {
			if !slices.ContainsFunc(keys, func(k issuer.SigningKey) bool { return k.KID == kid }) {
				if err := removeTempKey(r.cfg.Dir, kid); err != nil {
					return err
				}
				continue
			}
			if err := completeTempKey(r.cfg.Dir, kid); err != nil {
				return err
			}
		}
		return syncDir(r.cfg.Dir)
	})
}

// completeTempKey gives the temporary file of kid, a recorded key, its
// name, once it has checked that the file holds that key.
func completeTempKey(dir, kid string) error {
	path, err := keyPath(dir, kid)
	if err != nil {
		return err
	}
	k, err := readKeyFile(path + tempSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // another process completed it
	}
	if err != nil {
		return err
	}
	if k.Public().KeyID() != kid {
		return fmt.Errorf("keyring: temporary key file %s holds key %s, not %s", path+tempSuffix, k.Public().KeyID(), kid)
	}
	_, err = settleKeyFile(dir, kid)
	return err
}

// drawKey draws a key for alg and returns it with its record, whose
// Prepare writes the private half to the key directory under its
// temporary name, inside the recording transaction. The caller settles
// the file with [Keyring.settle] once that transaction has ended.
func (r *Keyring) drawKey(ctx context.Context, alg passport.Algorithm) (*passport.PrivateKey, KeyRecord, error) {
	if err := r.openDir(ctx); err != nil {
		return nil, KeyRecord{}, err
	}
	k, err := passport.GenerateKey(alg, r.cfg.Rand)
	if err != nil {
		return nil, KeyRecord{}, err
	}
	rec, err := record(k)
	if err != nil {
		return nil, KeyRecord{}, err
	}
	rec.Prepare = func() error {
		if err := writeTempKey(r.cfg.Dir, k); err != nil {
			return err
		}
		reached(stepWritten)
		return nil
	}
	return k, rec, nil
}

// settle ends the writing of k's private half once its recording
// transaction has ended: when the record committed, the temporary file
// gets its name and settle returns its path; otherwise the directory is
// reconciled, which removes the file unless the record committed after
// all (a commit whose answer was lost). A record that committed while its
// file could not be renamed is an error that says so; the next
// reconciliation completes it.
func (r *Keyring) settle(ctx context.Context, k *passport.PrivateKey, recorded bool) (string, error) {
	kid := k.Public().KeyID()
	if !recorded {
		return "", r.reconcile(ctx)
	}
	reached(stepCommitted)
	path, err := settleKeyFile(r.cfg.Dir, kid)
	if err != nil {
		return "", fmt.Errorf("keyring: key %s is recorded and its private half is in %s: %w", kid, r.cfg.Dir, err)
	}
	return path, nil
}

func record(k *passport.PrivateKey) (KeyRecord, error) {
	pub, err := k.Public().MarshalJSON()
	if err != nil {
		return KeyRecord{}, err
	}
	pub, err = passport.Canonicalize(pub)
	if err != nil {
		return KeyRecord{}, err
	}
	return KeyRecord{KID: k.Public().KeyID(), Alg: string(k.Public().Algorithm()), PublicJWK: string(pub)}, nil
}

// Generated is a key written to the key directory and recorded.
type Generated struct {
	Key  issuer.SigningKey
	Path string // the private key file
}

// Generate creates a key for alg, writes its private half to the key
// directory and records it as ready: neither signing nor published until
// [Keyring.Rotate] activates it. The file is written under a temporary
// name before the record commits and renamed after; when recording fails
// it is removed.
func (r *Keyring) Generate(ctx context.Context, alg passport.Algorithm) (Generated, error) {
	k, rec, err := r.drawKey(ctx, alg)
	if err != nil {
		return Generated{}, err
	}
	sk, err := r.st.AddSigningKey(ctx, rec)
	path, serr := r.settle(ctx, k, err == nil)
	if err = errors.Join(err, serr); err != nil {
		return Generated{}, err
	}
	return Generated{Key: sk, Path: path}, nil
}

// Rotation is the outcome of [Keyring.Rotate].
type Rotation struct {
	KeyChange
	// Path is the private key file of a key generated by the rotation;
	// empty when an existing key was activated.
	Path string
}

// Rotate makes a key active and retires the active one, in one
// transaction. With kid empty it generates a new key for alg first, as
// [Keyring.Generate] writes one (removing its file again if the rotation
// fails); otherwise it activates the ready key kid, or records and
// activates a key found only in the key directory or key file. The
// private half must be available: a key that cannot sign is never made
// active. A rotation that would publish more than [verifier.MaxTrustedKeys]
// keys is refused. Stopped at any point, it leaves the old state or the
// new one.
func (r *Keyring) Rotate(ctx context.Context, kid string, alg passport.Algorithm) (Rotation, error) {
	var (
		k   *passport.PrivateKey
		rec KeyRecord
		err error
	)
	if kid == "" {
		k, rec, err = r.drawKey(ctx, alg)
	} else if k, err = r.privateKey(ctx, kid); err != nil {
		return Rotation{}, &issuer.Error{Code: issuer.CodeConflict,
			Message: "key " + kid + " cannot be made active: its private half is not usable", Err: err}
	} else {
		rec, err = record(k)
	}
	if err != nil {
		return Rotation{}, err
	}
	var change KeyChange
	if err = r.roomToPublish(ctx); err == nil {
		change, err = r.st.ActivateSigningKey(ctx, rec, r.PublishFor())
	}
	var path string
	if rec.Prepare != nil {
		var serr error
		path, serr = r.settle(ctx, k, err == nil)
		err = errors.Join(err, serr)
	}
	if err != nil {
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
	k, rec, err := r.drawKey(ctx, alg)
	if err != nil {
		return nil, err
	}
	sk, activated, err := r.st.ActivateFirstSigningKey(ctx, rec)
	path, serr := r.settle(ctx, k, err == nil && activated)
	if err = errors.Join(err, serr); err != nil {
		return nil, err
	}
	if !activated {
		_, _, err = r.Active(ctx)
		return nil, err
	}
	return &Generated{Key: sk, Path: path}, nil
}

// Retire takes the key kid out of signing: its window closes now and it
// stays published for PublishFor more, or, with withdraw, leaves
// publication at once (for a key that must no longer be trusted; what it
// signed stops verifying for anyone who fetches the trust file again).
// Retiring the active key leaves no key active. Either changes the keys
// epoch: once it returns, no issuer process serves a passport it cached
// before.
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
	if err := r.openDir(ctx); err != nil {
		return nil, err
	}
	keys, err := r.st.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	now := r.cfg.Now()
	out := make([]KeyInfo, len(keys))
	for i, k := range keys {
		out[i] = KeyInfo{SigningKey: k, Published: k.PublishedAt(now), Private: "present"}
		if _, err := r.privateKey(ctx, k.KID); errors.Is(err, ErrPrivateKeyMissing) {
			out[i].Private = "missing"
		} else if err != nil {
			out[i].Private, out[i].PrivateError = "unusable", err.Error()
		}
	}
	return out, nil
}
