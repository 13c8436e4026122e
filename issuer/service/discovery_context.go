package service

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/skilltrust"
)

// contextBatch is how many candidates one read of a ceiling order returns.
const contextBatch = 64

// contextParallel is how many candidates a page in context assesses at
// once: the next ones in ceiling order, ahead of the one it decides on.
const contextParallel = 4

// candidates merges the two ceiling orders of a query in context: the
// agents whose evidence carries the query's label on its first stated
// dimension (by their ceiling for that label), and the others (by their
// ceiling for any other label); the ceilings of contexts that state that
// dimension alone when the query states no other.
type candidates struct {
	d       *Discovery
	streams [2]*ceilingStream
}

// ceilingStream reads one ceiling order a batch at a time.
type ceilingStream struct {
	d                       *Discovery
	skill, dimension, label string
	alone, matched          bool
	after                   IndexPosition
	buf                     []Candidate
	done                    bool
}

func (s *ceilingStream) head(ctx context.Context) (*Candidate, error) {
	if len(s.buf) == 0 && !s.done {
		cs, err := s.d.st.CeilingPage(ctx, s.skill, s.dimension, s.label, s.alone, s.matched, s.after, contextBatch)
		if err != nil {
			return nil, err
		}
		s.buf, s.done = cs, len(cs) < contextBatch
		if len(cs) > 0 {
			last := cs[len(cs)-1]
			s.after = IndexPosition{Key: last.CeilingKey, ID: last.Subject}
		}
	}
	if len(s.buf) == 0 {
		return nil, nil
	}
	return &s.buf[0], nil
}

// next returns the next candidate in the merged order, nil after the last.
func (c *candidates) next(ctx context.Context) (*Candidate, error) {
	var best *ceilingStream
	var head *Candidate
	for _, s := range c.streams {
		h, err := s.head(ctx)
		if err != nil {
			return nil, err
		}
		if h != nil && (head == nil || ceilingPos(*h).before(ceilingPos(*head))) {
			best, head = s, h
		}
	}
	if head == nil {
		return nil, nil
	}
	out := *head
	best.buf = best.buf[1:]
	return &out, nil
}

func ceilingPos(c Candidate) IndexPosition { return IndexPosition{Key: c.CeilingKey, ID: c.Subject} }

// assessed is a candidate's figures in context, or gone when it is no
// longer listed.
type assessed struct {
	f    found
	gone bool
	err  error
}

// contextPage ranks the agents whose passports list the skill by their
// skill passports in the task context (SPEC.md §17.4). Candidates are
// walked in ceiling order, the most that the context can make of each
// first; each is assessed in the context (through the passport cache and
// the memo), and the walk stops as soon as the next candidate's ceiling
// places it after the page's last result: neither it nor any candidate
// after it can enter the page. The results are exactly the first limit
// after the cursor in the contextual order.
//
// Every candidate before the stop is read, including those whose figures
// in context put them on earlier pages, so a page deep into a long list
// reads every candidate whose ceiling is ahead of its results; the memo
// spares assessing them again. Assessing anew is bounded by the budget:
// a page that would need more returns only the results already proven to
// be in order, with Truncated set, and a cursor that resumes it.
func (d *Discovery) contextPage(ctx context.Context, q query, page *issuer.FindAgentsPage) ([]found, bool, error) {
	work := &issuer.ContextWork{Budget: d.budget}
	page.Work = work
	hour := strconv.FormatInt(hourBucket(d.now().UTC()), 10)
	labels := q.ctx.Values()
	memoSuffix := "\x00" + hour + "\x00" + q.skill + "\x00" + strings.Join(labels[:], "\x00")
	memoKey := func(c Candidate) string { return string(c.Subject) + "\x00" + c.Current + memoSuffix }
	task := skilltrust.Task{Skill: q.skill, Context: q.ctx}
	dim, label, stated := skilltrust.ContextDimension(q.ctx)
	walk := &candidates{d: d}
	for i, matched := range []bool{true, false} {
		walk.streams[i] = &ceilingStream{d: d, skill: q.skill, dimension: evidence.Dimensions[dim], label: label,
			alone: stated == 1, matched: matched, after: Start}
	}

	// assess assesses cs in context at once, those the memo lacks, within
	// the budget; it reports whether the budget stopped it short of cs[0].
	ready := map[issuer.AgentID]assessed{}
	assess := func(cs []Candidate) bool {
		var todo []Candidate
		for _, c := range cs {
			if _, ok := ready[c.Subject]; ok {
				continue
			}
			if f, ok := d.memo.Get(memoKey(c)); ok {
				ready[c.Subject] = assessed{f: f}
				continue
			}
			if work.Assessed+len(todo) < d.budget {
				todo = append(todo, c)
			}
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, c := range todo {
			wg.Go(func() {
				a := assessed{}
				sp, err := d.passports.SkillPassport(ctx, c.Subject, task)
				switch {
				case issuer.ErrorCode(err) == issuer.CodeNotFound:
					a.gone = true
				case err != nil:
					a.err = err
				default:
					s := skillSummary(sp)
					var lower *int64
					if sp.Estimate != nil {
						l := millionths(sp.Estimate.Lower)
						lower = &l
					}
					a.f = found{pos: IndexPosition{Key: RankKey(sp.EvidenceLevel, lower), ID: c.Subject},
						agent: issuer.FoundAgent{ID: c.Subject, Skill: s, Why: why(s, true)}}
					d.memo.Add(memoKey(c), a.f)
				}
				mu.Lock()
				ready[c.Subject] = a
				mu.Unlock()
			})
		}
		wg.Wait()
		work.Assessed += len(todo)
		_, ok := ready[cs[0].Subject]
		return !ok
	}

	var best []found // the results after the cursor found so far, in order, at most limit
	var ahead []Candidate
	more := false
	for {
		for len(ahead) < contextParallel {
			c, err := walk.next(ctx)
			if err != nil {
				return nil, false, err
			}
			if c == nil {
				break
			}
			ahead = append(ahead, *c)
		}
		if len(ahead) == 0 {
			return best, more, nil
		}
		c := ahead[0]
		ceiling := ceilingPos(c)
		if len(best) == q.limit && best[q.limit-1].pos.before(ceiling) {
			// Neither c nor any later candidate can enter the page, and c
			// itself follows it: there is a next page.
			return best, true, nil
		}
		if _, ok := ready[c.Subject]; !ok && assess(ahead) {
			// Out of budget: keep what is proven to precede every
			// candidate not yet assessed.
			proven := best[:0:0]
			for _, b := range best {
				if b.pos.before(ceiling) {
					proven = append(proven, b)
				}
			}
			page.Truncated = true
			page.Note = fmt.Sprintf("This page stops early: ranking in this context needs more than the %d assessments one request may make. The results shown are in their final order; call again with nextCursor (or, without one, the same query) to continue: assessments already made are kept for the hour.", d.budget)
			return proven, true, nil
		}
		ahead = ahead[1:]
		a := ready[c.Subject]
		delete(ready, c.Subject)
		if a.err != nil {
			return nil, false, a.err
		}
		if a.gone {
			continue // no longer listed: not a result
		}
		work.Candidates++
		f := a.f
		f.agent.Name = issuer.PublicName(c.Name)
		f.agent.ChangedSinceIndexed = c.Current != c.Revision
		if q.started && !q.cursor.before(f.pos) {
			continue // on an earlier page
		}
		at, _ := slices.BinarySearchFunc(best, f.pos, func(b found, p IndexPosition) int {
			if b.pos.before(p) {
				return -1
			}
			return 1
		})
		if at < q.limit {
			best = slices.Insert(best, at, f)
			if len(best) > q.limit {
				best, more = best[:q.limit], true
			}
		} else {
			more = true
		}
	}
}
