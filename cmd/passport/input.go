package main

import (
	"fmt"
	"io"
	"os"
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
			return nil, usageError(err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, usageError(fmt.Errorf("read %s: %w", name, err))
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
		return nil, usageError(fmt.Errorf("%s is larger than %d bytes", name, limit))
	}
	return b, nil
}
