package verifier

import (
	"bytes"
	"sync/atomic"
)

// A Cache builds Verifiers from trust files and keeps the one built from
// the last file it was given. A service that reads its published trust
// file again for every request, so that a rotated key takes effect at
// once, then parses the file and builds a Verifier (keys decoded, parse
// buffers grown) only when the file's bytes change. It is safe for
// concurrent use.
type Cache struct {
	opts []Option
	last atomic.Pointer[cached]
}

type cached struct {
	file []byte
	v    *Verifier
}

// NewCache returns a Cache whose Verifiers are built with opts.
func NewCache(opts ...Option) *Cache { return &Cache{opts: opts} }

// For returns the Verifier for the trust file file (SPEC.md §10): the one
// kept when file holds the same bytes as last time, otherwise a new one,
// which is kept instead. A file that does not parse is an error, and the
// kept Verifier stays.
func (c *Cache) For(file []byte) (*Verifier, error) {
	if l := c.last.Load(); l != nil && bytes.Equal(l.file, file) {
		return l.v, nil
	}
	trust, err := ParseTrust(file)
	if err != nil {
		return nil, err
	}
	v, err := New(trust, c.opts...)
	if err != nil {
		return nil, err
	}
	c.last.Store(&cached{file: bytes.Clone(file), v: v})
	return v, nil
}
