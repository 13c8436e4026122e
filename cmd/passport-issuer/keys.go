package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/passport"
)

// defaultIssuer is the issuer identifier of a development setup: the
// address serve listens on by default.
const defaultIssuer = "http://127.0.0.1:8787"

// keyFlags locate the issuer's signing keys; serve and every keys command
// take them.
type keyFlags struct {
	KeyDir  string        `name:"keys" env:"PASSPORT_KEYS" default:"./passportkit-keys" placeholder:"DIR" help:"Directory of private signing keys (mode 0700, files 0600)."`
	KeyFile string        `name:"key-file" env:"PASSPORT_ISSUER_KEY_FILE" placeholder:"FILE" help:"One more private key file kept outside the directory, such as a mounted secret (mode 0600)."`
	Issuer  string        `name:"issuer" env:"PASSPORT_ISSUER" default:"${default_issuer}" help:"Issuer identifier that passports name and trust files pin: the issuer's public URL."`
	MaxTTL  time.Duration `name:"max-passport-ttl" env:"PASSPORT_MAX_PASSPORT_TTL" default:"720h" help:"Longest validity of a passport; a retired key stays published this long plus 24h after its retirement."`
}

// keyring returns the keyring the flags describe over db.
func (f *keyFlags) keyring(db *store.DB) (*keyring.Keyring, error) {
	if f.MaxTTL <= 0 {
		return nil, cli.Usage(errors.New("--max-passport-ttl must be positive"))
	}
	r, err := keyring.New(db, keyring.Config{Issuer: f.Issuer, Dir: f.KeyDir, KeyFile: f.KeyFile, MaxPassportTTL: f.MaxTTL})
	if err != nil {
		return nil, cli.Usage(err)
	}
	return r, nil
}

// keysCmd groups the signing-key commands.
type keysCmd struct {
	keyFlags `embed:""`

	Generate    keysGenerateCmd    `cmd:"" help:"Generate a key and record it as ready (not yet signing)."`
	List        keysListCmd        `cmd:"" help:"List the recorded keys, their windows and status."`
	Rotate      keysRotateCmd      `cmd:"" help:"Make a key active and retire the active one (kept published while what it signed is unexpired)."`
	Retire      keysRetireCmd      `cmd:"" help:"Take a key out of signing."`
	ExportTrust keysExportTrustCmd `cmd:"" name:"export-trust" help:"Write the trust file that passport verify --trust reads."`
}

// AfterApply makes the key flags available to the subcommands.
func (c *keysCmd) AfterApply(kctx *kong.Context) error {
	kctx.Bind(&c.keyFlags)
	return nil
}

// withKeyring opens the database and the keyring and runs fn.
func withKeyring(e *env, f *keyFlags, fn func(*keyring.Keyring) error) error {
	return e.withStore(func(db *store.DB) error {
		r, err := f.keyring(db)
		if err != nil {
			return err
		}
		return fn(r)
	})
}

func stamp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

type keysGenerateCmd struct {
	Alg string `help:"Signature algorithm: EdDSA (Ed25519) or ES256 (P-256)." enum:"EdDSA,ES256" default:"EdDSA"`
}

func (c *keysGenerateCmd) Run(e *env, f *keyFlags) error {
	return withKeyring(e, f, func(r *keyring.Keyring) error {
		g, err := r.Generate(e.ctx, passport.Algorithm(c.Alg))
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s key %s written to %s\nit is ready, not signing: `passport-issuer keys rotate %s` makes it active\n", g.Key.Alg, g.Key.KID, g.Path, g.Key.KID)
		return nil
	})
}

type keysListCmd struct {
	JSON bool `name:"json" help:"Print the keys as a JSON array."`
}

func (c *keysListCmd) Run(e *env, f *keyFlags) error {
	return withKeyring(e, f, func(r *keyring.Keyring) error {
		keys, err := r.List(e.ctx)
		if err != nil {
			return err
		}
		if c.JSON {
			if keys == nil {
				keys = []keyring.KeyInfo{}
			}
			return json.NewEncoder(e.stdout).Encode(keys)
		}
		if len(keys) == 0 {
			fmt.Fprintln(e.stdout, "no keys: `passport-issuer keys rotate` creates and activates one")
			return nil
		}
		w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "KID\tALG\tSTATUS\tNOT BEFORE\tNOT AFTER\tPUBLISHED\tPRIVATE")
		for _, k := range keys {
			published := "no"
			if k.Published {
				published = "yes"
				if k.PublishUntil != nil {
					published = "until " + stamp(k.PublishUntil)
				}
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.KID, k.Alg, k.Status, stamp(k.NotBefore), stamp(k.NotAfter), published, k.Private)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		for _, k := range keys {
			if k.PrivateError != "" {
				fmt.Fprintf(e.stderr, "key %s: %s\n", k.KID, k.PrivateError)
			}
		}
		return nil
	})
}

type keysRotateCmd struct {
	KID string `arg:"" optional:"" name:"kid" help:"A ready key to activate, or a key found only in the key directory or key file; without it a new key is generated."`
	Alg string `help:"Algorithm of a generated key: EdDSA (Ed25519) or ES256 (P-256)." enum:"EdDSA,ES256" default:"EdDSA"`
}

func (c *keysRotateCmd) Run(e *env, f *keyFlags) error {
	return withKeyring(e, f, func(r *keyring.Keyring) error {
		rot, err := r.Rotate(e.ctx, c.KID, passport.Algorithm(c.Alg))
		if err != nil {
			return err
		}
		if rot.Path != "" {
			fmt.Fprintf(e.stdout, "%s key %s written to %s\n", rot.Active.Alg, rot.Active.KID, rot.Path)
		}
		fmt.Fprintf(e.stdout, "key %s is active from %s\n", rot.Active.KID, stamp(rot.Active.NotBefore))
		if old := rot.Retired; old != nil {
			fmt.Fprintf(e.stdout, "key %s retired at %s; published until %s\n", old.KID, stamp(old.NotAfter), stamp(old.PublishUntil))
		}
		return nil
	})
}

type keysRetireCmd struct {
	KID      string `arg:"" name:"kid" help:"The key to retire."`
	Withdraw bool   `help:"Stop publishing the key now (a compromised key) and revoke every passport it signed: what it signed stops verifying for anyone who fetches the trust file or its status list again."`
}

func (c *keysRetireCmd) Run(e *env, f *keyFlags) error {
	return withKeyring(e, f, func(r *keyring.Keyring) error {
		wasActive := false
		if _, k, err := r.Active(e.ctx); err == nil && k.KID == c.KID {
			wasActive = true
		}
		k, err := r.Retire(e.ctx, c.KID, c.Withdraw)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "key %s retired at %s; published until %s\n", k.KID, stamp(k.NotAfter), stamp(k.PublishUntil))
		if c.Withdraw {
			fmt.Fprintln(e.stdout, "every kept passport it signed is revoked in the status lists")
		}
		if wasActive {
			fmt.Fprintln(e.stderr, "no key is active now: passports cannot be signed until `passport-issuer keys rotate`")
		}
		return nil
	})
}

type keysExportTrustCmd struct {
	Out string `short:"o" placeholder:"FILE" help:"Write the trust file to FILE instead of standard output."`
}

func (c *keysExportTrustCmd) Run(e *env, f *keyFlags) error {
	return withKeyring(e, f, func(r *keyring.Keyring) error {
		b, err := r.TrustFile(e.ctx)
		if err != nil {
			return err
		}
		if c.Out == "" {
			_, err = e.stdout.Write(b)
			return err
		}
		// A trust file is public: mode 0644.
		return os.WriteFile(c.Out, b, 0o644)
	})
}
