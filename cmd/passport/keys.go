package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

type keysCmd struct {
	Generate keysGenerateCmd `cmd:"" help:"Generate a signing key (a private JWK, mode 0600)."`
	Public   keysPublicCmd   `cmd:"" help:"Print the public JWK of a key file."`
	Trust    keysTrustCmd    `cmd:"" help:"Print a trust file for an issuer's keys."`
	Prove    keysProveCmd    `cmd:"" help:"Prove to an issuer that you hold a key: sign its nonce (SPEC.md §20)."`
}

type keysGenerateCmd struct {
	Alg   string `help:"Signature algorithm: EdDSA (Ed25519) or ES256 (P-256)." enum:"EdDSA,ES256" default:"EdDSA"`
	Out   string `help:"File to write; it must not exist." required:"" placeholder:"FILE" type:"path"`
	Force bool   `help:"Overwrite FILE if it exists."`
}

func (c *keysGenerateCmd) Run(e *env) error {
	alg, err := passport.ParseAlgorithm(c.Alg)
	if err != nil {
		return cli.Usage(err)
	}
	key, err := passport.GenerateKey(alg, rand.Reader)
	if err != nil {
		return err
	}
	b, err := key.MarshalJSON()
	if err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if c.Force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(c.Out, flags, 0o600)
	if err != nil {
		return cli.Usage(err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s key %s written to %s\n", alg, key.Public().KeyID(), c.Out)
	return nil
}

// readPublicKey reads a key file holding either a private or a public JWK
// and returns its public key.
func readPublicKey(e *env, name string) (*passport.PublicKey, error) {
	b, err := readBounded(e, name, passport.MaxKeySize)
	if err != nil {
		return nil, err
	}
	if priv, err := passport.ParsePrivateKey(b); err == nil {
		return priv.Public(), nil
	}
	pub, err := passport.ParsePublicKey(b)
	if err != nil {
		return nil, cli.Usage(fmt.Errorf("%s: %w", name, err))
	}
	return pub, nil
}

type keysPublicCmd struct {
	File string `arg:"" help:"Key file (private or public JWK)." type:"path"`
}

func (c *keysPublicCmd) Run(e *env) error {
	pub, err := readPublicKey(e, c.File)
	if err != nil {
		return err
	}
	b, err := pub.MarshalJSON()
	if err != nil {
		return err
	}
	b, err = passport.Canonicalize(b)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}

type keysTrustCmd struct {
	Issuer    string   `help:"The issuer id passports must name." required:""`
	NotBefore string   `help:"Keys sign passports issued at or after this RFC 3339 time." placeholder:"T"`
	NotAfter  string   `help:"Keys sign passports issued at or before this RFC 3339 time." placeholder:"T"`
	Keys      []string `arg:"" name:"keyfile" help:"Key files (private or public JWKs)." type:"path"`
}

func (c *keysTrustCmd) Run(e *env) error {
	var nb, na time.Time
	var err error
	if c.NotBefore != "" {
		if nb, err = time.Parse(time.RFC3339, c.NotBefore); err != nil {
			return cli.Usage(fmt.Errorf("--not-before: %w", err))
		}
	}
	if c.NotAfter != "" {
		if na, err = time.Parse(time.RFC3339, c.NotAfter); err != nil {
			return cli.Usage(fmt.Errorf("--not-after: %w", err))
		}
	}
	if len(c.Keys) == 0 {
		return cli.Usage(errors.New("at least one key file is required"))
	}
	var keys []verifier.TrustedKey
	for _, name := range c.Keys {
		pub, err := readPublicKey(e, name)
		if err != nil {
			return err
		}
		keys = append(keys, verifier.TrustedKey{Key: pub, NotBefore: nb, NotAfter: na})
	}
	trust, err := verifier.NewTrust(c.Issuer, keys...)
	if err != nil {
		return cli.Usage(err)
	}
	b, err := trust.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}
