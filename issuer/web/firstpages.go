package web

import (
	"slices"
	"sync"

	"github.com/remnant/passportkit/issuer"
)

// firstPagesSize bounds the passports whose first pages of sources are
// kept.
const firstPagesSize = 16

// firstPages keeps, per passport, the first page of sources of each skill
// a profile shows (the evidence route's page of the skill without a
// context, profileSources long). A passport never changes, so neither does
// that page, and within an hour an unchanged subject is served the same
// passport: the profile reads each page once per passport instead of
// assessing every listed skill on every view. It holds at most max
// passports, dropping the least recently shown first, and is safe for
// concurrent use.
type firstPages struct {
	mu    sync.Mutex
	max   int
	order []string // passport hashes, least recently used first
	pages map[string]map[string]issuer.EvidencePage
}

func newFirstPages(max int) *firstPages {
	return &firstPages{max: max, pages: map[string]map[string]issuer.EvidencePage{}}
}

// get returns the page of skill of the passport hash, if kept.
func (c *firstPages) get(hash, skill string) (issuer.EvidencePage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev, ok := c.pages[hash][skill]
	if ok {
		c.touch(hash)
	}
	return ev, ok
}

// put keeps ev, the first page of skill, under the passport it names.
func (c *firstPages) put(skill string, ev issuer.EvidencePage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := ev.PassportHash
	if c.pages[h] == nil {
		if len(c.order) == c.max {
			delete(c.pages, c.order[0])
			c.order = c.order[1:]
		}
		c.pages[h] = map[string]issuer.EvidencePage{}
		c.order = append(c.order, h)
	}
	c.pages[h][skill] = ev
	c.touch(h)
}

// touch marks the passport hash h the most recently used.
func (c *firstPages) touch(h string) {
	if i := slices.Index(c.order, h); i >= 0 {
		c.order = append(slices.Delete(c.order, i, i+1), h)
	}
}
