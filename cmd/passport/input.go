package main

import (
	"fmt"
	"io"
	"os"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// readInput reads a file, or standard input for "-", refusing more than
// limit bytes. A read of limit+1 bytes tells the caller the input was too
// large without reading the rest. Errors are usage errors.
func readInput(e *env, name string, limit int64) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = e.stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, cli.Usage(err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, cli.Usage(fmt.Errorf("read %s: %w", name, err))
	}
	return b, nil
}

// readBounded is readInput for inputs that must fit: more than limit bytes
// is a usage error.
func readBounded(e *env, name string, limit int64) ([]byte, error) {
	b, err := readInput(e, name, limit)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, cli.Usage(fmt.Errorf("%s is larger than %d bytes", name, limit))
	}
	return b, nil
}

// loadSigner reads a private JWK, as "passport keys generate" writes it.
func loadSigner(e *env, path string) (*passport.Signer, error) {
	b, err := readBounded(e, path, maxKeyFile)
	if err != nil {
		return nil, err
	}
	key, err := passport.ParsePrivateKey(b)
	if err != nil {
		return nil, cli.Usage(fmt.Errorf("%s: %w", path, err))
	}
	return passport.NewSigner(key), nil
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
