package service

import (
	"container/list"
	"sync"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// Cache bounds: the trust model's per-database capacity of 100 subjects ×
// 100 task contexts.
const (
	CacheSubjects = 100
	CacheContexts = 100
)

// cacheKey names one cached answer within a subject: the subject's
// revision token, a normalised context (for a passport, its disclosure) and
// the UTC hour bucket.
type cacheKey struct {
	revision string
	context  string
	hour     int64
}

// hourBucket is the UTC hour t falls in.
func hourBucket(t time.Time) int64 { return t.Unix() / 3600 }

// cache is a two-level LRU: at most CacheSubjects subjects, each with at
// most CacheContexts entries. Entries are keyed by the subject's revision
// token, so a write that bumps the revision makes every older entry
// unreachable even before [cache.invalidate] drops it; a rolled-back
// transaction bumps nothing that anyone could have read, and its random
// token is never reused. It is safe for concurrent use.
type cache struct {
	mu       sync.Mutex
	subjects map[issuer.AgentID]*list.Element // of *subjectEntries
	order    *list.List                       // most recently used first
}

type subjectEntries struct {
	id      issuer.AgentID
	entries map[cacheKey]*list.Element // of *cacheEntry
	order   *list.List
}

type cacheEntry struct {
	key   cacheKey
	value any
}

func newCache() *cache {
	return &cache{subjects: map[issuer.AgentID]*list.Element{}, order: list.New()}
}

// get returns the entry of id under k, marking both used.
func (c *cache) get(id issuer.AgentID, k cacheKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	se, ok := c.subjects[id]
	if !ok {
		return nil, false
	}
	s := se.Value.(*subjectEntries)
	e, ok := s.entries[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(se)
	s.order.MoveToFront(e)
	return e.Value.(*cacheEntry).value, true
}

// put stores v for id under k, evicting the least recently used context
// of id, and the least recently used subject, beyond the bounds. Entries
// of id under another revision are dropped: they can never be read again.
func (c *cache) put(id issuer.AgentID, k cacheKey, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(id, k, v)
}

func (c *cache) putLocked(id issuer.AgentID, k cacheKey, v any) {
	se, ok := c.subjects[id]
	if !ok {
		se = c.order.PushFront(&subjectEntries{id: id, entries: map[cacheKey]*list.Element{}, order: list.New()})
		c.subjects[id] = se
		for c.order.Len() > CacheSubjects {
			last := c.order.Back()
			c.order.Remove(last)
			delete(c.subjects, last.Value.(*subjectEntries).id)
		}
	}
	c.order.MoveToFront(se)
	s := se.Value.(*subjectEntries)
	for key, e := range s.entries {
		if key.revision != k.revision || key.hour != k.hour {
			s.order.Remove(e)
			delete(s.entries, key)
		}
	}
	if e, ok := s.entries[k]; ok {
		e.Value.(*cacheEntry).value = v
		s.order.MoveToFront(e)
		return
	}
	s.entries[k] = s.order.PushFront(&cacheEntry{key: k, value: v})
	for s.order.Len() > CacheContexts {
		last := s.order.Back()
		s.order.Remove(last)
		delete(s.entries, last.Value.(*cacheEntry).key)
	}
}

// add stores v for id under k unless an entry is there already, and
// returns the entry that is kept, so that concurrent misses agree on one.
func (c *cache) add(id issuer.AgentID, k cacheKey, v any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	if se, ok := c.subjects[id]; ok {
		if e, ok := se.Value.(*subjectEntries).entries[k]; ok {
			return e.Value.(*cacheEntry).value
		}
	}
	c.putLocked(id, k, v)
	return v
}

// addBeside is add for an entry that may be older than those cached: it
// stores v only when id has no entries under another revision or hour,
// which it would drop, and returns the entry kept or v.
func (c *cache) addBeside(id issuer.AgentID, k cacheKey, v any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	if se, ok := c.subjects[id]; ok {
		s := se.Value.(*subjectEntries)
		if e, ok := s.entries[k]; ok {
			return e.Value.(*cacheEntry).value
		}
		for key := range s.entries {
			if key.revision != k.revision || key.hour != k.hour {
				return v
			}
		}
	}
	c.putLocked(id, k, v)
	return v
}

// invalidate drops every entry of id.
func (c *cache) invalidate(id issuer.AgentID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if se, ok := c.subjects[id]; ok {
		c.order.Remove(se)
		delete(c.subjects, id)
	}
}

// clear drops every entry.
func (c *cache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subjects = map[issuer.AgentID]*list.Element{}
	c.order.Init()
}

// len returns the number of subjects and of entries held.
func (c *cache) len() (subjects, entries int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, se := range c.subjects {
		entries += len(se.Value.(*subjectEntries).entries)
	}
	return len(c.subjects), entries
}
