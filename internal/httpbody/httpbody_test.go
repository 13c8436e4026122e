package httpbody

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/internal/problem/problemhttp"
)

func TestJSONMediaType(t *testing.T) {
	for ct, ok := range map[string]bool{
		"application/json":                     true,
		"application/json; charset=utf-8":      true,
		"Application/JSON; CHARSET=\"UTF-8\"":  true,
		"application/json;charset=utf-8":       true,
		"":                                     false,
		"text/plain":                           false,
		"application/json; charset=latin1":     false,
		"application/json; charset=utf-8; x=y": false,
		"application/jsonx":                    false,
		"application/problem+json":             false,
		"application/json; charset":            false,
		"multipart/form-data; boundary=x":      false,
	} {
		if err := checkJSONType(ct, ""); (err == nil) != ok {
			t.Errorf("%q: %v, want accepted %v", ct, err, ok)
		}
	}
	// A document's own media type is accepted as application/json is, only
	// where it is named.
	const bundle = "application/vnd.passportkit.bundle+json"
	for ct, ok := range map[string]bool{
		"application/json": true,
		bundle:             true,
		"Application/VND.passportkit.bundle+JSON":       true,
		bundle + "; charset=utf-8":                      true,
		bundle + "; charset=latin1":                     false,
		"application/vnd.passportkit.presentation+json": false,
		"": false,
	} {
		if err := checkJSONType(ct, bundle); (err == nil) != ok {
			t.Errorf("%q with the bundle's type: %v, want accepted %v", ct, err, ok)
		}
	}
	if checkJSONType(bundle, "") == nil {
		t.Error("a document's type accepted where none is named")
	}
}

// serve runs Read with opt behind a loopback server and reports the
// outcome as status and code.
func serve(t *testing.T, opt Options) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := Read(w, r, opt)
		if err != nil {
			var be *Error
			if !errors.As(err, &be) {
				t.Errorf("error %v is not an *Error", err)
			}
			problemhttp.Write(w, problem.New(be.Code, be.Detail, r.URL.Path))
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReadBoundsAndEncodings(t *testing.T) {
	srv := serve(t, Options{Limit: 16, Timeout: 5 * time.Second, JSON: true})
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		io.WriteString(w, s)
		w.Close()
		return b.String()
	}
	for _, c := range []struct {
		name, body, encoding string
		status               int
		want                 string
	}{
		{"plain", `{"a":1}`, "", 200, `{"a":1}`},
		{"at the bound", strings.Repeat("a", 16), "", 200, strings.Repeat("a", 16)},
		{"over the bound", strings.Repeat("a", 17), "", 413, "body_too_large"},
		{"gzip", gz(`{"a":1}`), "gzip", 200, `{"a":1}`},
		{"gzip, upper case", gz(`{"a":1}`), "GZIP", 200, `{"a":1}`},
		{"over the bound after decompression", gz(strings.Repeat("a", 17)), "gzip", 413, "body_too_large"},
		{"not gzip", `{"a":1}`, "gzip", 400, "invalid_request"},
		{"truncated gzip", gz(`{"a":1}`)[:12], "gzip", 400, "invalid_request"},
		{"deflate", `{"a":1}`, "deflate", 415, "unsupported_media_type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			if c.encoding != "" {
				req.Header.Set("Content-Encoding", c.encoding)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status || !strings.Contains(string(b), c.want) {
				t.Fatalf("%d %s, want %d %s", res.StatusCode, b, c.status, c.want)
			}
		})
	}
}

func TestReadAnswers408ToAStalledBody(t *testing.T) {
	srv := serve(t, Options{Limit: 1 << 10, Timeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{")
	b, _ := io.ReadAll(c) // the server closes after answering
	if !strings.HasPrefix(string(b), "HTTP/1.1 408 ") || !strings.Contains(string(b), `"code":"request_timeout"`) {
		t.Fatalf("answer %q", b)
	}
}
