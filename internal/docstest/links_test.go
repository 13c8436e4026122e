package docstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	link     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpan = regexp.MustCompile("`[^`]*`")
	scheme   = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

// checkLinks checks every relative link of pages: the file or folder it
// names exists, and the heading its #fragment names, in a Markdown file,
// is there.
func checkLinks(t *testing.T, pages []string) {
	t.Helper()
	anchors := map[string]map[string]bool{}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks := 0
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				blocks++
			}
			if blocks%2 == 1 {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, "``"), -1) {
				if err := checkLink(page, m[1], anchors); err != nil {
					t.Errorf("%s:%d: %v", page, i+1, err)
				}
			}
		}
	}
}

// checkLink checks one link target of page.
func checkLink(page, target string, anchors map[string]map[string]bool) error {
	if scheme.MatchString(target) {
		return nil
	}
	path, fragment, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		file = filepath.ToSlash(filepath.Join(filepath.Dir(page), path))
		if _, err := os.Stat(filepath.Join(root, file)); err != nil {
			return fmt.Errorf("a link to %s, which is not there", target)
		}
	}
	if fragment == "" || !strings.HasSuffix(file, ".md") {
		return nil
	}
	if anchors[file] == nil {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return err
		}
		anchors[file] = headingAnchors(string(b))
	}
	if !anchors[file][fragment] {
		return fmt.Errorf("a link to %s: %s has no heading #%s", target, file, fragment)
	}
	return nil
}

// headingAnchors returns the anchors a Markdown renderer gives the headings
// of doc, as GitHub makes them: lower case, the text's letters, digits,
// hyphens and underscores, spaces made hyphens, and -1, -2, … after a
// repeated one.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for n := 1; out[a]; n++ {
			a = fmt.Sprintf("%s-%d", b.String(), n)
		}
		out[a] = true
	}
	return out
}
