package issuer

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

// Bounds of a memory search.
const (
	// MaxSearchQuery is the longest search text, in characters.
	MaxSearchQuery = 256
	// MaxSearchTerms is the most distinct words a search text may hold.
	MaxSearchTerms = 16
	// DefaultSearchLimit and MaxSearchLimit bound the results of a page.
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
	// SearchWindow is how many of the most relevant matches a search
	// ranks; offset+limit reaches at most this far.
	SearchWindow = 200
	// MaxSearchTrustSet bounds an explicit trust set.
	MaxSearchTrustSet = 64
)

// SearchQuery is a memory search (see [NewSearchQuery]).
type SearchQuery struct {
	// Text is the search text as given; Terms are its words, lower-cased,
	// in order, each once: a memory matches when it holds every term.
	Text  string
	Terms []string
	// IncludeLow includes authors below the reader-trust threshold.
	IncludeLow bool
	Limit      int
	Offset     int
	// TrustSet, when not empty, is the reader's explicit trust set; when
	// empty the calling agent's own is used.
	TrustSet []AgentID
}

// NewSearchQuery checks a search's parameters; nil means absent. text is 1
// to MaxSearchQuery characters holding 1 to MaxSearchTerms distinct words
// (runs of letters and digits, compared lower-cased); limit is 1 to 50 (10
// when absent); offset is 0 or more and offset+limit at most
// [SearchWindow]; trust lists 1 to [MaxSearchTrustSet] distinct agent IDs.
func NewSearchQuery(text *string, includeLow *bool, limit, offset *int, trust []string) (SearchQuery, error) {
	q := SearchQuery{Limit: DefaultSearchLimit}
	if text == nil {
		return q, Errorf(CodeInvalid, "q is required: the words to search for")
	}
	t, err := cleanText("q", *text, 1, MaxSearchQuery, lineText)
	if err != nil {
		return q, err
	}
	q.Text = t
	q.Terms = SearchTerms(t)
	switch n := len(q.Terms); {
	case n == 0:
		return q, Errorf(CodeInvalid, "q must hold at least one word of letters or digits")
	case n > MaxSearchTerms:
		return q, Errorf(CodeInvalid, "q holds %d distinct words; a search takes at most %d, every one of which must match", n, MaxSearchTerms)
	}
	if includeLow != nil {
		q.IncludeLow = *includeLow
	}
	if limit != nil {
		if *limit < 1 || *limit > MaxSearchLimit {
			return q, Errorf(CodeInvalid, "limit must be between 1 and %d", MaxSearchLimit)
		}
		q.Limit = *limit
	}
	if offset != nil {
		if *offset < 0 || *offset+q.Limit > SearchWindow {
			return q, Errorf(CodeInvalid, "offset must be 0 or more and offset+limit at most %d: a search ranks its %d most relevant matches", SearchWindow, SearchWindow)
		}
		q.Offset = *offset
	}
	if trust != nil {
		if len(trust) == 0 || len(trust) > MaxSearchTrustSet {
			return q, Errorf(CodeInvalid, "trust must list 1 to %d agent IDs: the agents whose judgement you trust directly", MaxSearchTrustSet)
		}
		for _, s := range trust {
			id, err := ParseAgentID(s)
			if err != nil {
				return q, Errorf(CodeInvalid, "trust: %s", ErrorMessage(err))
			}
			if slices.Contains(q.TrustSet, id) {
				return q, Errorf(CodeInvalid, "trust lists %s twice", id)
			}
			q.TrustSet = append(q.TrustSet, id)
		}
	}
	return q, nil
}

// SearchTerms returns the words of a search text: maximal runs of letters
// and digits, lower-cased, each once, in order. Everything else separates
// words, so no operator syntax of either engine's full-text search reaches
// it.
func SearchTerms(text string) []string {
	var terms []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = strings.ToLower(w)
		if !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	return terms
}

// searchParams is the table of a search's query string.
var searchParams = QuerySpec{Params: Params("q", "include_low", "limit", "offset", "trust")}

// ParseSearchQuery reads q, include_low, limit, offset and trust (agent
// IDs separated by commas) from a raw URL query string, whole
// ([QuerySpec.Read]: another parameter, or one given twice, is refused),
// then each value in that order, then as [NewSearchQuery] says.
func ParseSearchQuery(raw string) (SearchQuery, error) {
	v, err := searchParams.Read(raw)
	if err != nil {
		return SearchQuery{}, err
	}
	var includeLow *bool
	if low := one(v, "include_low"); low != nil {
		b, ok := map[string]bool{"true": true, "false": false}[*low]
		if !ok {
			return SearchQuery{}, Errorf(CodeInvalid, "include_low must be true or false")
		}
		includeLow = &b
	}
	limit, err := uintParam("limit", one(v, "limit"))
	if err != nil {
		return SearchQuery{}, err
	}
	offset, err := uintParam("offset", one(v, "offset"))
	if err != nil {
		return SearchQuery{}, err
	}
	var trust []string
	if tr := one(v, "trust"); tr != nil {
		trust = strings.Split(*tr, ",") // at most MaxQuery bytes to split
	}
	return NewSearchQuery(one(v, "q"), includeLow, limit, offset, trust)
}

// SearchPage is one page of a memory search as the reader sees it. It
// carries labels and counts only, never a trust or reputation number.
type SearchPage struct {
	Results []SearchResult `json:"results"`
	// TrustSet says whose trust set ranked the page: "own" (the calling
	// agent and the authors it validated positively) or "explicit".
	TrustSet string `json:"trustSet"`
	// UnknownTrustSet lists the explicit trust-set IDs that name no
	// listed agent (active and public); they seed nothing.
	UnknownTrustSet []AgentID `json:"unknownTrustSet,omitempty"`
	// HiddenLowTrust counts the matches in the ranked window left out
	// because the reader does not trust their author enough; include_low
	// shows them.
	HiddenLowTrust int `json:"hiddenLowTrust"`
	// NextOffset is the offset of the next page, when there is one within
	// the ranked window.
	NextOffset *int `json:"nextOffset,omitempty"`
	// WindowFull reports that the search matched more memories than the
	// window it ranks.
	WindowFull bool `json:"windowFull"`
}

// SearchResult is one memory found, with its status in the reader's view.
type SearchResult struct {
	ID       MemoryID `json:"id"`
	Author   AgentID  `json:"author,omitempty"`
	Title    string   `json:"title"`
	Category string   `json:"category"`
	Domain   string   `json:"domain"`
	// Kind is "digest" for a digest; absent for an ordinary memory.
	Kind MemoryKind `json:"kind,omitempty"`
	// Evicted reports that the memory's body was evicted under the
	// issuer's storage budget (SPEC.md §15.10); a search result never
	// carries the content.
	Evicted bool `json:"evicted,omitempty"`
	// Status is confirmed, contested, unverified or stale (SPEC.md §15.4).
	Status string `json:"status"`
	// Why says, for a contested memory, why: a code of SPEC.md §15.5 and a
	// short sentence.
	Why *SearchWhy `json:"why,omitempty"`
	// LowTrust marks a result shown only because include_low was set.
	LowTrust bool `json:"lowTrust,omitempty"`
	// Knowledge marks a knowledge entry in the reader's view (SPEC.md
	// §15.11); Sources are then its sources: a digest's refs, or the
	// memory itself.
	Knowledge bool       `json:"knowledge,omitempty"`
	Sources   []MemoryID `json:"sources,omitempty"`
	// CoveredBy names the knowledge entry that covers this memory: a
	// digest that consolidates it, or a later version of its lineage.
	CoveredBy *KnowledgeRef `json:"coveredBy,omitempty"`
	Counts    SearchCounts  `json:"counts"`
	CreatedAt time.Time     `json:"createdAt"`
}

// KnowledgeRef names a knowledge entry (SPEC.md §15.11).
type KnowledgeRef struct {
	ID    MemoryID   `json:"id"`
	Title string     `json:"title"`
	Kind  MemoryKind `json:"kind,omitempty"`
	// Status is the entry's status, confirmed.
	Status string `json:"status"`
}

// SearchWhy is the short "why" of a contested memory.
type SearchWhy struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// SearchCounts counts a memory's signals, one per independent group of
// agents (same owner, one group), the author's group left out.
type SearchCounts struct {
	Confirmations  int `json:"confirmations"`
	Uses           int `json:"uses"`
	Useful         int `json:"useful"`
	Contradictions int `json:"contradictions"`
	// Accepts counts the consulting agents' standing accepts; Citations
	// the visible memories by other groups citing it.
	Accepts   int `json:"accepts"`
	Citations int `json:"citations"`
}
