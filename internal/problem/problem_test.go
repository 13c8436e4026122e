package problem

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestVocabularyIsDocumented checks that the README's table of problem
// types and SPEC.md §13.2 list exactly the vocabulary, with its statuses.
func TestVocabularyIsDocumented(t *testing.T) {
	for _, doc := range []string{"../../README.md", "../../SPEC.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		documented := map[Code]int{}
		row := regexp.MustCompile("(?m)^\\| (`[a-z_0-9]+`(?:, `[a-z_0-9]+`)*) \\| (\\d{3}) \\|")
		for _, m := range row.FindAllStringSubmatch(string(b), -1) {
			status, _ := strconv.Atoi(m[2])
			for _, c := range strings.Split(m[1], ", ") {
				documented[Code(strings.Trim(c, "`"))] = status
			}
		}
		for _, c := range Codes() {
			_, e := Lookup(c)
			if documented[c] != e.Status {
				t.Errorf("%s: %s documented with status %d, want %d", doc, c, documented[c], e.Status)
			}
		}
		for c := range documented {
			if _, ok := table[c]; !ok {
				t.Errorf("%s documents %s, which is not in the vocabulary", doc, c)
			}
		}
	}
}

func TestWriteAndUnknownCode(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, New("no_such_code", "x", "/p"))
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
