package service

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/skilltrust"
)

// contextBatch is how many candidates one read of the ceiling order
// returns.
const contextBatch = 64

// contextPage ranks the agents whose passports list the skill by their
// skill passports in the task context (SPEC.md §17.4). Candidates are
// walked in ceiling order, the best that any context can make of each
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
	task := skilltrust.Task{Skill: q.skill, Context: q.ctx}

	var best []found // the results after the cursor found so far, in order, at most limit
	more := false
	walk := Start
	for {
		cands, err := d.st.CeilingPage(ctx, q.skill, walk, contextBatch)
		if err != nil {
			return nil, false, err
		}
		for _, c := range cands {
			ceiling := IndexPosition{Key: c.CeilingKey, ID: c.Subject}
			if len(best) == q.limit && best[q.limit-1].pos.before(ceiling) {
				// Neither c nor any later candidate can enter the page,
				// and c itself follows it: there is a next page.
				return best, true, nil
			}
			memoKey := string(c.Subject) + "\x00" + c.Current + memoSuffix
			f, ok := d.memo.Get(memoKey)
			if !ok {
				if work.Assessed == d.budget {
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
				sp, err := d.passports.SkillPassport(ctx, c.Subject, task)
				if issuer.ErrorCode(err) == issuer.CodeNotFound {
					walk = ceiling // no longer listed: not a result
					continue
				}
				if err != nil {
					return nil, false, err
				}
				work.Assessed++
				s := skillSummary(sp)
				var lower *int64
				if sp.Estimate != nil {
					l := millionths(sp.Estimate.Lower)
					lower = &l
				}
				f = found{pos: IndexPosition{Key: RankKey(sp.EvidenceLevel, lower), ID: c.Subject},
					agent: issuer.FoundAgent{ID: c.Subject, Skill: s, Why: why(s, true)}}
				d.memo.Add(memoKey, f)
			}
			work.Candidates++
			walk = ceiling
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
		if len(cands) < contextBatch {
			return best, more, nil
		}
	}
}
