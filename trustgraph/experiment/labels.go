package experiment

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/remnant/passportkit/trustgraph"
)

// MaxLabels bounds a label file's lines.
const MaxLabels = 1_000_000

// ReadLabels reads a label file in the REV2 form: lines of id,label with
// label +1 (benign) or −1 (fraudulent), written "+1", "1" or "-1". Blank
// lines are skipped; an id labelled twice, any other label, an id outside
// 1 to trustgraph.MaxIDBytes bytes, more than MaxLabels lines or a line
// over trustgraph.MaxLineBytes are refused with the line number.
func ReadLabels(r io.Reader) (map[string]int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), trustgraph.MaxLineBytes)
	labels := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		if line > MaxLabels {
			return nil, &trustgraph.LineError{Line: line, Err: fmt.Errorf("%w: more than %d lines", trustgraph.ErrTooLarge, MaxLabels)}
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		id, l, ok := strings.Cut(text, ",")
		id, l = strings.TrimSpace(id), strings.TrimSpace(l)
		if !ok || id == "" || len(id) > trustgraph.MaxIDBytes {
			return nil, &trustgraph.LineError{Line: line, Err: fmt.Errorf("%w: want id,label", trustgraph.ErrBadLine)}
		}
		var v int
		switch l {
		case "+1", "1":
			v = 1
		case "-1":
			v = -1
		default:
			return nil, &trustgraph.LineError{Line: line, Err: fmt.Errorf("%w: label %q is not +1 or -1", trustgraph.ErrBadLine, l)}
		}
		if _, dup := labels[id]; dup {
			return nil, &trustgraph.LineError{Line: line, Err: fmt.Errorf("%w: %q is labelled twice", trustgraph.ErrBadLine, id)}
		}
		labels[id] = v
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &trustgraph.LineError{Line: line + 1, Err: fmt.Errorf("%w: longer than %d bytes", trustgraph.ErrTooLarge, trustgraph.MaxLineBytes)}
		}
		return nil, err
	}
	return labels, nil
}
