package requestlog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestStartAndLog: Start keeps a sane client id and replaces any other,
// echoes it and puts it in the context; the recorder notes the status and
// bytes, and Log writes them under the id, with the method bounded.
func TestStartAndLog(t *testing.T) {
	fresh := regexp.MustCompile(`^[a-z2-7]{26}$`)
	for _, c := range []struct {
		header string
		kept   bool
	}{
		{"abc-1_2.3:4", true}, {strings.Repeat("a", MaxID), true},
		{"", false}, {strings.Repeat("a", MaxID+1), false}, {"a b", false}, {"é", false},
	} {
		var logs bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&logs, nil))
		req := httptest.NewRequest("PROPFIND", "/x?secret=1", nil)
		req.Header.Set(Header, c.header)
		rec := httptest.NewRecorder()
		w, r := Start(rec, req)
		id := ID(r.Context())
		if got := rec.Header().Get(Header); got != id || c.kept && id != c.header || !c.kept && !fresh.MatchString(id) {
			t.Errorf("%q: id %q, header %q", c.header, id, got)
		}
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("12345"))
		Log(r.Context(), log, w.Line(r, "/x", time.Now()))
		var line map[string]any
		if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line["request_id"] != id || line["method"] != "other" || line["status"] != 418.0 || line["bytes"] != 5.0 || line["route"] != "/x" {
			t.Errorf("%q: line %v", c.header, line)
		}
		if strings.Contains(logs.String(), "secret") {
			t.Errorf("the query string was logged: %s", logs.String())
		}
	}
}
