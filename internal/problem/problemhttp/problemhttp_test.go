package problemhttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/problem"
)

func TestWriteAndUnknownCode(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, problem.New("no_such_code", "x", "/p"))
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), `"code":"internal"`) ||
		w.Header().Get("Content-Type") != "application/problem+json" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
}

func TestRewriteCannedLeavesOtherWritesAlone(t *testing.T) {
	for _, b := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nok",
		"HTTP/1.1 431 Request Header Fields Too Large\r\nDate: x\r\n\r\n",
		"payload",
	} {
		if _, ok := rewriteCanned([]byte(b), 1024); ok {
			t.Errorf("rewrote %q", b)
		}
	}
	out, ok := rewriteCanned([]byte("HTTP/1.1 431 Request Header Fields Too Large"+cannedHeaders+"431 Request Header Fields Too Large"), 1024)
	if !ok || !strings.Contains(string(out), `"code":"header_too_large"`) || !strings.HasPrefix(string(out), "HTTP/1.1 431 ") {
		t.Fatalf("%q", out)
	}
}
