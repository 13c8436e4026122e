package httpserve

import (
	"bufio"
	"bytes"
	"math"
	"net/http"
	"testing"
)

// FuzzHeadMatchesNetHTTP checks the head count against net/http's parser:
// wherever http.ReadRequest reads a request, the scan ends exactly where
// that request's head ends, however the bytes are split between reads.
func FuzzHeadMatchesNetHTTP(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\nHost: x\n\nbody",
		"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
		"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\n\n",
		"GET / HTTP/1.1\r\nHost: x\r\r\n\r\n",
		"\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		f.Add([]byte(s), uint16(7))
	}
	f.Fuzz(func(t *testing.T, b []byte, split uint16) {
		cut := int(split) % (len(b) + 1)
		var h head
		end, ended, _ := h.scan(b[:cut], math.MaxInt)
		if !ended {
			var n int
			n, ended, _ = h.scan(b[cut:], math.MaxInt)
			end = cut + n
		}
		br := bufio.NewReaderSize(bytes.NewReader(b), len(b)+16)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		if read := len(b) - br.Buffered(); !ended || end != read {
			t.Fatalf("%q: the scan ends at %d (ended %v), net/http reads a head of %d bytes", b, end, ended, read)
		}
	})
}

// TestHeadScanRefusesOnlyPastTheBound counts heads at the bound.
func TestHeadScanRefusesOnlyPastTheBound(t *testing.T) {
	const req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	for max, ok := range map[int]bool{len(req): true, len(req) + 1: true, len(req) - 1: false} {
		var h head
		n, ended, accepted := h.scan([]byte(req+"body"), max)
		if accepted != ok || ok && (!ended || n != len(req)) {
			t.Errorf("bound %d: %d %v %v", max, n, ended, accepted)
		}
	}
}
