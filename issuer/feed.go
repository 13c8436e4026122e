package issuer

import (
	"time"

	"github.com/remnant/passportkit/reputation"
)

// Bounds of the memory feed (SPEC.md §15.9).
const (
	// MaxFeedWait is the longest a feed request waits for a new memory.
	MaxFeedWait = 30 * time.Second
	// DefaultFeedWait is how long a feed request waits when wait is absent.
	DefaultFeedWait = MaxFeedWait
	// DefaultFeedLimit and MaxFeedLimit bound the memories of a feed page.
	DefaultFeedLimit = 20
	MaxFeedLimit     = 50
	// MaxFeedCursor bounds a feed cursor, in characters.
	MaxFeedCursor = 128
)

// The statuses of a memory in the reader's view (SPEC.md §15.4), in the
// order minStatus reads them: each admits itself and those after it.
const (
	StatusContested  = "contested"
	StatusStale      = "stale"
	StatusUnverified = "unverified"
	StatusConfirmed  = "confirmed"
)

// statusOrder ranks the statuses for minStatus: contested lowest.
var statusOrder = map[string]int{StatusContested: 0, StatusStale: 1, StatusUnverified: 2, StatusConfirmed: 3}

// FeedQuery is a read of the memory feed (see [NewFeedQuery]).
type FeedQuery struct {
	// After is the cursor of the previous page; "" starts at the oldest
	// memory.
	After string
	// MinStatus is the least status shown; "" shows every status.
	MinStatus string
	// Domain is the normalised category shown; "" shows every one.
	Domain string
	// Wait is how long to wait when nothing new is shown.
	Wait time.Duration
	// Limit bounds the memories of the page.
	Limit int
}

// Admits reports whether a memory of status s passes q's minStatus.
func (q FeedQuery) Admits(s string) bool {
	return q.MinStatus == "" || statusOrder[s] >= statusOrder[q.MinStatus]
}

// NewFeedQuery checks a feed read's parameters; nil means absent. after is
// a cursor of at most [MaxFeedCursor] characters; minStatus one of
// contested, stale, unverified, confirmed; category one line of at most
// MaxCategory characters, not blank once normalised (compared as a
// memory's domain); wait 0 to 30 seconds (30 when absent);
// limit 1 to 50 (20 when absent).
func NewFeedQuery(after, minStatus, category *string, wait, limit *int) (FeedQuery, error) {
	q := FeedQuery{Wait: DefaultFeedWait, Limit: DefaultFeedLimit}
	if after != nil {
		if len(*after) > MaxFeedCursor || !cursorForm(*after) {
			return q, Errorf(CodeCursorInvalid, "after must be the cursor of a previous feed page")
		}
		q.After = *after
	}
	if minStatus != nil {
		if _, ok := statusOrder[*minStatus]; !ok {
			return q, Errorf(CodeInvalid, "minStatus must be contested, stale, unverified or confirmed")
		}
		q.MinStatus = *minStatus
	}
	if category != nil {
		c, err := cleanText("category", *category, 0, MaxCategory, lineText)
		if err != nil {
			return q, err
		}
		if q.Domain = reputation.NormalizeDomain(c); q.Domain == "" {
			return q, Errorf(CodeInvalid, "category must not be blank: name a category, or leave it out for every category")
		}
	}
	if wait != nil {
		if *wait < 0 || *wait > int(MaxFeedWait/time.Second) {
			return q, Errorf(CodeInvalid, "wait must be 0 to %d seconds", int(MaxFeedWait/time.Second))
		}
		q.Wait = time.Duration(*wait) * time.Second
	}
	if limit != nil {
		if *limit < 1 || *limit > MaxFeedLimit {
			return q, Errorf(CodeInvalid, "limit must be 1 to %d", MaxFeedLimit)
		}
		q.Limit = *limit
	}
	return q, nil
}

// feedParams is the table of a feed read's query string.
var feedParams = QuerySpec{Params: Params("after", "minStatus", "category", "wait", "limit")}

// ParseFeedQuery reads after, minStatus, category, wait and limit from a
// raw URL query string, whole ([QuerySpec.Read]), then as [NewFeedQuery]
// says.
func ParseFeedQuery(raw string) (FeedQuery, error) {
	v, err := feedParams.Read(raw)
	if err != nil {
		return FeedQuery{}, err
	}
	wait, err := uintParam("wait", one(v, "wait"))
	if err != nil {
		return FeedQuery{}, err
	}
	limit, err := uintParam("limit", one(v, "limit"))
	if err != nil {
		return FeedQuery{}, err
	}
	return NewFeedQuery(one(v, "after"), one(v, "minStatus"), one(v, "category"), wait, limit)
}

// FeedPage is one page of the memory feed: the memories published after
// the cursor, oldest first, with their status in the reader's view. It
// carries labels and counts only.
type FeedPage struct {
	Results []SearchResult `json:"results"`
	// Cursor is the position after the last memory read, shown or not:
	// pass it as after to read on.
	Cursor string `json:"cursor"`
	// HiddenLowTrust counts the memories of the page's span left out
	// because the reader does not trust their author enough.
	HiddenLowTrust int `json:"hiddenLowTrust"`
	// More reports that memories past the cursor are already there: read
	// on without waiting.
	More bool `json:"more"`
}

// Bounds of browsing (SPEC.md §15.9).
const (
	// BrowseWindow is how many of the newest readable memories a browse
	// map counts.
	BrowseWindow = 1000
	// MaxBrowseGroups bounds the entries of each list of a browse map.
	MaxBrowseGroups = 100
)

// BrowseMap is a map of the memories a reader may read, by category,
// domain and skill (appliesTo), with counts only.
type BrowseMap struct {
	Categories []BrowseGroup `json:"categories"`
	Domains    []BrowseGroup `json:"domains"`
	Skills     []BrowseGroup `json:"skills"`
	// HiddenLowTrust counts the memories of the window left out because
	// the reader does not trust their author enough.
	HiddenLowTrust int `json:"hiddenLowTrust"`
	// WindowFull reports that more memories are readable than the window
	// counts.
	WindowFull bool `json:"windowFull"`
}

// BrowseGroup is one label of a browse map and the counts of the memories
// under it in the reader's view.
type BrowseGroup struct {
	Label     string `json:"label"`
	Entries   int    `json:"entries"`
	Confirmed int    `json:"confirmed"`
	Contested int    `json:"contested"`
}
