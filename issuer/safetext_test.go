package issuer

import "testing"

func TestNeutralize(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                      "plain text",
		"tab\tand\nlines\r":               "tab\tand\nlines\r",
		"evil\u202Etxt.exe":               "evil\uFFFDtxt.exe",
		"iso\u2066late\u2069":             "iso\uFFFDlate\uFFFD",
		"zero\u200Bwidth\uFEFF":           "zero\uFFFDwidth\uFFFD",
		"bell\a and nul\x00":              "bell\uFFFD and nul\uFFFD",
		"bad \xff utf8":                   "bad \uFFFD utf8",
		"PostgreSQL indexing":             "PostgreSQL indexing",
		"日本語 and émoji 🚀":                 "日本語 and émoji 🚀",
		"soft\u00ADhyphen":                "soft\uFFFDhyphen",
		"arabic mark\u061C and lrm\u200E": "arabic mark\uFFFD and lrm\uFFFD",
	} {
		if got := Neutralize(in); got != want {
			t.Errorf("Neutralize(%q) = %q, want %q", in, got, want)
		}
	}
}
