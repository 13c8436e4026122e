package httpserve

import (
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// MinCompressSize is the largest answer body sent as it is: only a longer
// one is compressed.
const MinCompressSize = 1024

// The content codings [Compress] writes.
const (
	CodingGzip = "gzip"
	CodingZstd = "zstd"
)

// maxCodings bounds how many entries of an Accept-Encoding header are read.
const maxCodings = 16

// zstdWindow is the window of the zstd coding: far under the 8 MiB RFC 9659
// allows a decoder to refuse beyond, and larger than any answer.
const zstdWindow = 1 << 20

// Compress returns h with its answers compressed for the clients that ask:
// an answer is sent zstd- or gzip-coded when its body is longer than
// [MinCompressSize], its Content-Type is text (see [Compressible]), it sets
// no Content-Encoding of its own, and the request's Accept-Encoding accepts
// the coding ([NegotiateCoding]). Such an answer carries
// Vary: Accept-Encoding whichever coding it is sent in, identity included;
// its ETag, Cache-Control and every other header are kept as h set them
// (Content-Length is dropped when the body is coded). Answers to HEAD, 1xx,
// 204, 206 and 304 answers (and any with a Content-Range), and an answer h
// flushes before it has written more than MinCompressSize bytes (a stream)
// are sent as h writes them.
func Compress(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &compressWriter{ResponseWriter: w, coding: NegotiateCoding(r.Header.Values("Accept-Encoding")), head: r.Method == http.MethodHead}
		defer cw.close()
		h.ServeHTTP(cw, r)
	})
}

// NegotiateCoding returns the content coding to answer a request whose
// Accept-Encoding header lines are lines with: "zstd" or "gzip", whichever
// the client weighs higher (zstd on a tie), or "" when it accepts neither
// (or sent no header). A coding named with q=0 is refused; "*" stands for
// a coding the header does not name. At most 16 entries are read.
func NegotiateCoding(lines []string) string {
	q := map[string]float64{}
	n := 0
	for _, line := range lines {
		for entry := range strings.SplitSeq(line, ",") {
			if n++; n > maxCodings {
				break
			}
			name, params, _ := strings.Cut(entry, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			weight := 1.0
			if k, v, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 || f > 1 {
					continue
				}
				weight = f
			}
			if _, seen := q[name]; !seen {
				q[name] = weight
			}
		}
	}
	weight := func(c string) float64 {
		if w, ok := q[c]; ok {
			return w
		}
		return q["*"]
	}
	z, g := weight(CodingZstd), weight(CodingGzip)
	switch {
	case z > 0 && z >= g:
		return CodingZstd
	case g > 0:
		return CodingGzip
	}
	return ""
}

// Compressible reports whether an answer of media type contentType (a
// Content-Type header) is worth compressing: text/* but event streams,
// JSON (application/json and any +json type), JavaScript, XML and SVG.
// Anything else (images, archives, and the status list tokens of
// application/statuslist+jwt, whose list is compressed already) is not.
func Compressible(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch {
	case mt == "text/event-stream":
		return false
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/javascript", mt == "application/xml", strings.HasSuffix(mt, "+xml"):
		return true
	}
	return false
}

var (
	gzipWriters = sync.Pool{New: func() any {
		zw, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
		return zw
	}}
	zstdWriters = sync.Pool{New: func() any {
		zw, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(zstdWindow))
		return zw
	}}
)

// encoder is a pooled compressor.
type encoder interface {
	io.WriteCloser
	Flush() error
	Reset(io.Writer)
}

// compressWriter holds an answer back until it knows whether to compress
// it: at WriteHeader when the handler set Content-Length, or once the body
// passes MinCompressSize (compress) or ends or is flushed first (send it as
// it is).
type compressWriter struct {
	http.ResponseWriter
	coding  string // the coding the client accepts, or ""
	head    bool   // the request is HEAD
	status  int    // the status the handler wrote, 0 before
	decided bool   // the headers are sent, and enc chosen
	buf     []byte // the body held back before deciding
	enc     encoder
}

func (w *compressWriter) WriteHeader(status int) {
	if w.decided || w.status != 0 {
		return
	}
	if status < 200 {
		w.ResponseWriter.WriteHeader(status) // 1xx: informational, sent at once
		return
	}
	w.status = status
	h := w.Header()
	if !w.eligible() {
		w.send(false)
		return
	}
	if cl := h.Get("Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		w.send(err == nil && n > MinCompressSize)
	}
}

// eligible reports whether the answer could be compressed, by its status,
// method and headers; the size decides.
func (w *compressWriter) eligible() bool {
	h := w.Header()
	return !w.head && w.status != http.StatusNoContent && w.status != http.StatusNotModified &&
		w.status != http.StatusPartialContent && h.Get("Content-Range") == "" &&
		h.Get("Content-Encoding") == "" && Compressible(h.Get("Content-Type"))
}

// send decides: it writes the headers, coded when compress is set, then
// the body held back.
func (w *compressWriter) send(compress bool) {
	w.decided = true
	h := w.Header()
	if compress {
		addVary(h, "Accept-Encoding")
		switch w.coding {
		case CodingGzip:
			w.enc = gzipWriters.Get().(*gzip.Writer)
		case CodingZstd:
			w.enc = zstdWriters.Get().(*zstd.Encoder)
		}
		if w.enc != nil {
			h.Set("Content-Encoding", w.coding)
			h.Del("Content-Length")
			w.enc.Reset(w.ResponseWriter)
		}
	}
	w.ResponseWriter.WriteHeader(w.status)
	if len(w.buf) > 0 {
		w.write(w.buf)
		w.buf = nil
	}
}

func (w *compressWriter) write(b []byte) (int, error) {
	if w.enc != nil {
		return w.enc.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *compressWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		if w.Header().Get("Content-Type") == "" {
			// net/http would sniff it; so does this writer, to decide.
			w.Header().Set("Content-Type", http.DetectContentType(b))
		}
		w.WriteHeader(http.StatusOK)
	}
	if !w.decided {
		if len(w.buf)+len(b) <= MinCompressSize {
			w.buf = append(w.buf, b...)
			return len(b), nil
		}
		w.send(true)
	}
	return w.write(b)
}

// Flush sends what is written so far: an answer not yet decided is sent
// as it is, a stream.
func (w *compressWriter) Flush() {
	if w.status != 0 && !w.decided {
		w.send(false)
	}
	if w.enc != nil {
		w.enc.Flush()
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's own writer.
func (w *compressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// close ends the answer once the handler returns.
func (w *compressWriter) close() {
	if w.status != 0 && !w.decided {
		w.send(false)
	}
	switch enc := w.enc.(type) {
	case *gzip.Writer:
		enc.Close()
		enc.Reset(io.Discard)
		gzipWriters.Put(enc)
	case *zstd.Encoder:
		enc.Close()
		enc.Reset(nil)
		zstdWriters.Put(enc)
	}
	w.enc = nil
}

// addVary adds field to h's Vary unless it is named there already.
func addVary(h http.Header, field string) {
	for _, line := range h.Values("Vary") {
		for f := range strings.SplitSeq(line, ",") {
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, field) {
				return
			}
		}
	}
	h.Add("Vary", field)
}
