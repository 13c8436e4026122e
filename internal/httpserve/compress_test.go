package httpserve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func TestNegotiateCoding(t *testing.T) {
	for _, c := range []struct {
		header []string
		want   string
	}{
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"identity"}, ""},
		{[]string{"gzip"}, "gzip"},
		{[]string{"GZIP"}, "gzip"},
		{[]string{"zstd"}, "zstd"},
		{[]string{"gzip, deflate, br, zstd"}, "zstd"},
		{[]string{"gzip", "zstd"}, "zstd"},
		{[]string{"zstd;q=0.5, gzip"}, "gzip"},
		{[]string{"zstd;q=0, gzip;q=0.1"}, "gzip"},
		{[]string{"gzip;q=0"}, ""},
		{[]string{"*"}, "zstd"},
		{[]string{"*;q=0.5, zstd;q=0"}, "gzip"},
		{[]string{"*;q=0, gzip"}, "gzip"},
		{[]string{"gzip;q=2"}, ""},                         // out of range: ignored
		{[]string{"gzip;q=x"}, ""},                         // unreadable: ignored
		{[]string{"gzip;q=1, gzip;q=0"}, "gzip"},           // the first entry of a coding counts
		{[]string{strings.Repeat("x, ", 16) + "gzip"}, ""}, // past the 16th entry: unread
	} {
		if got := NegotiateCoding(c.header); got != c.want {
			t.Errorf("Accept-Encoding %q: %q, want %q", c.header, got, c.want)
		}
	}
}

func TestCompressible(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                        true,
		"application/json; charset=utf-8":         true,
		"application/problem+json":                true,
		"application/vnd.passportkit.bundle+json": true,
		"application/jwk-set+json":                true,
		"text/html; charset=utf-8":                true,
		"text/css":                                true,
		"image/svg+xml":                           true,
		"text/event-stream":                       false,
		"application/statuslist+jwt":              false,
		"image/png":                               false,
		"application/gzip":                        false,
		"application/octet-stream":                false,
		"":                                        false,
		"not a media type;;":                      false,
	} {
		if got := Compressible(ct); got != want {
			t.Errorf("%q: %v", ct, got)
		}
	}
}

// rawClient sees the bytes on the wire: it neither asks for nor decodes a
// coding of its own.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// fetch asks srv for path with the Accept-Encoding acceptEncoding (none
// when ""), and returns the answer with its body as sent.
func fetch(t *testing.T, srv *httptest.Server, method, path, acceptEncoding string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	res, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// decode undoes the coding of an answer body.
func decode(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return b
	case CodingGzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case CodingZstd:
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("coding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", coding, err)
	}
	return out
}

// TestCompressOverLoopback serves answers of each kind through Compress
// and reads the bytes on the wire: only long text answers are coded, in
// the coding the client prefers, with Vary: Accept-Encoding whatever the
// coding, and the handler's ETag kept.
func TestCompressOverLoopback(t *testing.T) {
	long := []byte(`{"text":"` + strings.Repeat("passport ", 400) + `"}`)
	exact := bytes.Repeat([]byte("x"), MinCompressSize)
	mux := http.NewServeMux()
	answer := func(ct string, body []byte, withLength bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("ETag", `"e"`)
			if withLength {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
			if r.Method == http.MethodHead {
				return
			}
			// In small pieces: the writer decides once it has enough.
			for b := body; len(b) > 0; {
				n := min(len(b), 100)
				w.Write(b[:n])
				b = b[n:]
			}
		}
	}
	mux.Handle("/long", answer("application/json", long, false))
	mux.Handle("/long-sized", answer("application/json", long, true))
	mux.Handle("/exact", answer("text/plain", exact, false))
	mux.Handle("/exact-sized", answer("text/plain", exact, true))
	mux.Handle("/png", answer("image/png", long, true))
	mux.Handle("/token", answer("application/statuslist+jwt", long, false))
	mux.HandleFunc("/one-write", func(w http.ResponseWriter, r *http.Request) {
		w.Write(long) // no Content-Type: sniffed, as net/http would
	})
	mux.HandleFunc("/coded", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(long) // not gzip, but the handler says so: left alone
	})
	mux.HandleFunc("/not-modified", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"e"`)
		w.WriteHeader(http.StatusNotModified)
	})
	mux.HandleFunc("/range", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(long)-1, 2*len(long)))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(long)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"first":true}`))
		w.(http.Flusher).Flush()
		w.Write(long)
	})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(long)
	})
	srv := httptest.NewServer(Compress(mux))
	t.Cleanup(srv.Close)

	for _, c := range []struct {
		path, accept string
		coding       string // the coding sent
		vary         bool   // Vary: Accept-Encoding
		body         []byte
	}{
		{"/long", "gzip", "gzip", true, long},
		{"/long", "zstd", "zstd", true, long},
		{"/long", "gzip, zstd", "zstd", true, long},
		{"/long", "", "", true, long},
		{"/long", "br", "", true, long},
		{"/long-sized", "gzip", "gzip", true, long},
		{"/long-sized", "", "", true, long},
		{"/one-write", "gzip", "gzip", true, long},
		{"/exact", "gzip", "", false, exact},
		{"/exact-sized", "gzip", "", false, exact},
		{"/png", "gzip", "", false, long},
		{"/token", "gzip", "", false, long},
		{"/coded", "zstd", "gzip", false, long},
		{"/not-modified", "gzip", "", false, nil},
		{"/range", "gzip", "", false, long},
		{"/stream", "gzip", "", false, append([]byte(`{"first":true}`), long...)},
		{"/events", "gzip", "", false, long},
	} {
		res, b := fetch(t, srv, http.MethodGet, c.path, c.accept)
		if got := res.Header.Get("Content-Encoding"); got != c.coding {
			t.Errorf("%s (%s): coded %q, want %q", c.path, c.accept, got, c.coding)
			continue
		}
		if got := res.Header.Get("Vary") == "Accept-Encoding"; got != c.vary {
			t.Errorf("%s (%s): Vary %q", c.path, c.accept, res.Header.Values("Vary"))
		}
		if !slices.Contains([]string{"/stream", "/events", "/coded", "/one-write", "/range"}, c.path) && res.Header.Get("ETag") != `"e"` {
			t.Errorf("%s (%s): ETag %q", c.path, c.accept, res.Header.Get("ETag"))
		}
		if c.path == "/coded" {
			c.coding = "" // the handler's own claim
		}
		if got := decode(t, c.coding, b); !bytes.Equal(got, c.body) {
			t.Errorf("%s (%s): %d bytes decoded, want %d", c.path, c.accept, len(got), len(c.body))
		}
		if c.coding != "" {
			// net/http counts the coded body when it is short enough.
			if cl := res.Header.Get("Content-Length"); (cl != "" && cl != strconv.Itoa(len(b))) || len(b) >= len(c.body)/4 {
				t.Errorf("%s (%s): Content-Length %q, %d bytes on the wire for %d", c.path, c.accept, res.Header.Get("Content-Length"), len(b), len(c.body))
			}
		}
	}

	// HEAD is answered as the handler writes it: no coding, its length.
	res, b := fetch(t, srv, http.MethodHead, "/long-sized", "gzip")
	if res.Header.Get("Content-Encoding") != "" || res.Header.Get("Content-Length") != strconv.Itoa(len(long)) || len(b) != 0 {
		t.Errorf("HEAD: %v, %d bytes", res.Header, len(b))
	}
}
