package cli

import (
	"fmt"
	"io"
	"os"
)

// ReadInput reads the file name, or stdin when name is "-", stopping after
// limit+1 bytes: a caller that gets more than limit bytes knows the input
// is too large without reading the rest. A regular file is read into one
// buffer of its size. Errors are usage errors.
func ReadInput(stdin io.Reader, name string, limit int64) ([]byte, error) {
	r, size := stdin, int64(512)
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, Usage(err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r = f
	}
	b, err := readAll(io.LimitReader(r, limit+1), min(size, limit)+1)
	if err != nil {
		return nil, Usage(fmt.Errorf("read %s: %w", name, err))
	}
	return b, nil
}

// ReadFile is ReadInput for inputs that must fit: more than limit bytes is
// a usage error.
func ReadFile(stdin io.Reader, name string, limit int64) ([]byte, error) {
	b, err := ReadInput(stdin, name, limit)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, Usage(fmt.Errorf("%s is larger than %d bytes", name, limit))
	}
	return b, nil
}

// readAll is io.ReadAll starting from a buffer of size bytes, so that an
// input whose size is known is read without growing its buffer.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
