package trustgraph

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Bounds on an edge file.
const (
	// MaxLineBytes bounds one line.
	MaxLineBytes = 4096
	// MaxEdgeFileBytes bounds the whole file.
	MaxEdgeFileBytes = 1 << 30
)

// ErrBadLine is wrapped for a line of an edge file that cannot be read.
var ErrBadLine = errors.New("trustgraph: bad edge line")

// LineError says which line of an edge file was refused and why.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ReadEdges reads an edge file (SPEC.md §15.1): lines of
// source,target,weight[,time] separated by LF or CRLF. A first line whose
// weight field is not a number is a header and is skipped, so the SNAP
// Bitcoin files read as they are; blank lines are skipped. Fields are
// trimmed of spaces; quotes are refused. Weight and time are decimal
// numbers; a NaN or infinite weight or time is refused with its line
// number. At most MaxEdgeFileBytes bytes, MaxEdges edges and lines of
// MaxLineBytes are read.
func ReadEdges(r io.Reader) ([]Edge, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	var edges []Edge
	line := 0
	first := true
	read := 0
	for sc.Scan() {
		line++
		read += len(sc.Bytes()) + 1
		if read > MaxEdgeFileBytes {
			return nil, &LineError{line, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxEdgeFileBytes)}
		}
		text := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if len(edges) >= MaxEdges {
			return nil, &LineError{line, fmt.Errorf("%w: more than %d edges", ErrTooLarge, MaxEdges)}
		}
		e, header, err := parseEdgeLine(text, first)
		first = false
		if err != nil {
			return nil, &LineError{line, err}
		}
		if !header {
			edges = append(edges, e)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{line + 1, fmt.Errorf("%w: longer than %d bytes", ErrTooLarge, MaxLineBytes)}
		}
		return nil, err
	}
	return edges, nil
}

func parseEdgeLine(text string, mayBeHeader bool) (Edge, bool, error) {
	if strings.ContainsAny(text, "\"") {
		return Edge{}, false, fmt.Errorf("%w: quoted fields are not read", ErrBadLine)
	}
	f := strings.Split(text, ",")
	if len(f) != 3 && len(f) != 4 {
		return Edge{}, false, fmt.Errorf("%w: %d fields, want source,target,weight[,time]", ErrBadLine, len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	w, werr := number(f[2])
	if werr != nil && mayBeHeader && !errors.Is(werr, ErrBadWeight) {
		return Edge{}, true, nil
	}
	if werr != nil {
		return Edge{}, false, fmt.Errorf("weight %q: %w", truncate(f[2]), werr)
	}
	if len(f) == 4 {
		if _, err := number(f[3]); err != nil {
			return Edge{}, false, fmt.Errorf("time %q: %w", truncate(f[3]), err)
		}
	}
	for _, id := range f[:2] {
		if id == "" || len(id) > MaxIDBytes {
			return Edge{}, false, fmt.Errorf("%w: %q (an id is 1 to %d bytes)", ErrBadID, truncate(id), MaxIDBytes)
		}
	}
	return Edge{Source: f[0], Target: f[1], Weight: w}, false, nil
}

// number parses a decimal number, refusing NaN and infinities with
// ErrBadWeight and anything else that is not a decimal with ErrBadLine.
func number(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
		return 0, ErrBadWeight
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, ErrBadWeight
	}
	if err != nil || s == "" || strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789+-.eE", r) }) >= 0 {
		if l := strings.ToLower(strings.TrimLeft(s, "+-")); l == "nan" || l == "inf" || l == "infinity" {
			return 0, ErrBadWeight
		}
		return 0, fmt.Errorf("%w: not a decimal number", ErrBadLine)
	}
	return x, nil
}

// ParseEdges is [ReadEdges] over bytes.
func ParseEdges(b []byte) ([]Edge, error) { return ReadEdges(bytes.NewReader(b)) }
