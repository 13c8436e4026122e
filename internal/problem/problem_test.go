package problem

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestVocabularyIsDocumented checks that the reference's table of problem
// types (docs/reference.md) and SPEC.md §13.2 list exactly the vocabulary,
// with its statuses.
func TestVocabularyIsDocumented(t *testing.T) {
	for _, doc := range []string{"../../docs/reference.md", "../../SPEC.md"} {
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
