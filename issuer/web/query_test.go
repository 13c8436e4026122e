package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer/demoworld"
)

// testQueryStrings: every page reads its query as the API does (SPEC.md
// §13.4, §18.1): a field that does not decode, a field the page does not
// take and a single-valued field given twice are refused with the error
// page, its status and reason; none is dropped.
func testQueryStrings(t *testing.T, s *site) {
	profile, skill := "/agents/"+string(s.main), "/agents/"+string(s.main)+"/skills/"+demoworld.SkillEstimated
	for _, c := range []struct {
		path, code string
	}{
		{"/?agent=%zz", "invalid_request"},
		{"/?agent=" + string(s.main) + "&agent=" + string(s.main), "invalid_request"},
		{"/?colour=red", "invalid_request"},
		{profile + "?tab=skills", "invalid_request"},
		{profile + "?%zz", "invalid_request"},
		{"/agents/agt_nobody?tab=skills", "invalid_request"}, // the query before the agent
		{skill + "?workload=%zz", "invalid_request"},
		{skill + "?workload=", "invalid_request"},
		{skill + "?colour=red", "unknown_context_dimension"},
		{"/trust/assess?agent=%zz", "invalid_request"},
		{"/trust/assess?skill=x;agent=y", "invalid_request"},
		{"/trust/assess?colour=", "unknown_context_dimension"},
		{"/agents?skill=%zz", "invalid_request"},
		{"/agents?colour=", "unknown_context_dimension"}, // an unknown field, blank or not
		{"/agents?skill=x&skill=y", "invalid_request"},
		{"/verify?bundle=x", "invalid_request"},
		{"/assets/style.css?v=1&v=2", "invalid_request"},
		{"/assets/style.css?x=1", "invalid_request"},
	} {
		res, body := s.get(t, c.path)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Status 400, reason <code>"+c.code+"</code>") {
			t.Errorf("%s: %d, want 400 %s", c.path, res.StatusCode, c.code)
		}
	}
	// A form's blank fields are fields left unstated.
	for _, path := range []string{"/agents?skill=&domain=&limit=", "/trust/assess?agent=&skill=&domain=", "/?"} {
		if res, _ := s.get(t, path); res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
	}
}
