package main

import (
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// readInput reads a file, or standard input for "-", as cli.ReadInput
// does: more than limit bytes tells the caller the input was too large.
func readInput(e *env, name string, limit int64) ([]byte, error) {
	return cli.ReadInput(e.stdin, name, limit)
}

// readBounded is readInput for inputs that must fit: more than limit bytes
// is a usage error.
func readBounded(e *env, name string, limit int64) ([]byte, error) {
	return cli.ReadFile(e.stdin, name, limit)
}

// loadSigner reads a private JWK, as "passport keys generate" writes it.
func loadSigner(e *env, path string) (*passport.Signer, error) {
	key, err := loadPrivateKey(e, path)
	if err != nil {
		return nil, err
	}
	return passport.NewSigner(key), nil
}

// loadPrivateKey reads a private JWK.
func loadPrivateKey(e *env, path string) (*passport.PrivateKey, error) {
	b, err := readBounded(e, path, passport.MaxKeySize)
	if err != nil {
		return nil, err
	}
	key, err := passport.ParsePrivateKey(b)
	if err != nil {
		return nil, cli.Usage(fmt.Errorf("%s: %w", path, err))
	}
	return key, nil
}

// loadTrust reads a trust file, as "passport keys trust" writes it.
func loadTrust(e *env, path string) (*verifier.Trust, error) {
	b, err := readBounded(e, path, verifier.MaxTrustFileSize)
	if err != nil {
		return nil, err
	}
	t, err := verifier.ParseTrust(b)
	if err != nil {
		return nil, cli.Usage(fmt.Errorf("%s: %w", path, err))
	}
	return t, nil
}
