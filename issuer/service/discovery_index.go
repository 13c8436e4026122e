package service

import (
	"context"
	"log/slog"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/skilltrust"
)

// IndexSubject computes the index entry of the agent id from its current
// records and writes it (SPEC.md §17.1): its revision token is read first,
// then its passport is assembled (or taken from the passport cache for
// that revision and hour) and every skill it lists is entered with its
// figures and its ceiling. An agent that is private, unlisted or suspended
// is entered as not listed, with no rows. It reports whether the entry was
// written: not when a later write changed the subject meanwhile (its own
// re-indexing follows), nor for an unknown agent.
func (d *Discovery) IndexSubject(ctx context.Context, id issuer.AgentID) (bool, error) {
	rev, err := d.st.RevisionOf(ctx, id)
	if issuer.ErrorCode(err) == issuer.CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	w, err := d.entry(ctx, id, rev, d.now().UTC())
	if err != nil {
		return false, err
	}
	return d.st.WriteSubjectIndex(ctx, w)
}

// indexPending indexes the subject id as IndexSubject does when it awaits
// re-indexing and no other process is indexing it
// ([DiscoveryStore.ClaimSubjectIndex]), and reports whether its entry was
// written. It is how the background indexer and Sync index: each of
// several processes over one database hears every change, and one of them
// indexes it.
func (d *Discovery) indexPending(ctx context.Context, id issuer.AgentID) (bool, error) {
	wrote := false
	_, err := d.st.ClaimSubjectIndex(ctx, id, calendar.Of(d.now().UTC()).String(), func() error {
		var err error
		wrote, err = d.IndexSubject(ctx, id)
		return err
	})
	return wrote, err
}

// entry computes the index entry of id at revision rev as of now.
func (d *Discovery) entry(ctx context.Context, id issuer.AgentID, rev string, now time.Time) (SubjectIndex, error) {
	w := SubjectIndex{Subject: id, Revision: SubjectToken(rev), TrustLevel: "new"}
	draft, err := d.passports.unsigned(ctx, id, rev, now)
	if issuer.ErrorCode(err) == issuer.CodeNotFound {
		return w, nil // not listed: no rows
	}
	if err != nil {
		return w, err
	}
	w.Revision = SubjectToken(draft.Revision)
	p := &draft.Passport
	at := calendar.Of(p.IssuedAt.UTC())
	w.Listed, w.AssessedOn = true, at.String()
	w.Score, w.TrustLevel = int64(math.Round(p.ReputationScore*1000)), p.TrustLevel
	names := make([]string, len(p.SkillPassports))
	for i, sp := range p.SkillPassports {
		names[i] = sp.Skill
	}
	ceilings, err := skilltrust.Ceilings(draft.Collection().Set(), names, at)
	if err != nil {
		return w, err
	}
	for i, sp := range p.SkillPassports {
		row := IndexedSkill{
			Subject: id, Skill: sp.Skill, Level: sp.EvidenceLevel, State: sp.State, Assessment: sp.Assessment,
			Contested: sp.Contested, Stale: sp.Stale, Operators: sp.Effective.Operators, SourceCount: sp.SourceCount,
			AssessmentHash: sp.AssessmentHash, AssessedOn: sp.AssessedAt, Revision: w.Revision,
		}
		c := &ceilings[i]
		for d, dim := range evidence.Dimensions {
			for _, alone := range []bool{false, true} {
				dc := c.Dimensions[d]
				if alone {
					dc = c.Alone[d]
				}
				w.Ceilings = append(w.Ceilings, CeilingRow{Skill: sp.Skill, Dimension: dim, Alone: alone, Key: ceilingKey(dc.Other)})
				for _, l := range slices.Sorted(maps.Keys(dc.Labels)) {
					w.Ceilings = append(w.Ceilings, CeilingRow{Skill: sp.Skill, Dimension: dim, Label: l, Alone: alone, Key: ceilingKey(dc.Labels[l])})
				}
			}
		}
		if e := sp.Estimate; e != nil {
			lo, mid, up := millionths(e.Lower), millionths(e.Midpoint), millionths(e.Upper)
			row.Lower, row.Midpoint, row.Upper = &lo, &mid, &up
		}
		if r := sp.Recency; r != nil && r.LatestEligible > w.LatestEvidence {
			w.LatestEvidence = r.LatestEligible
		}
		row.RankKey = RankKey(row.Level, row.Lower)
		w.Skills = append(w.Skills, row)
	}
	return w, nil
}

// IndexReport says what an indexing run did.
type IndexReport struct {
	// Indexed counts the entries written; Skipped the subjects that
	// changed again before their entry could be written (or vanished).
	Indexed, Skipped int
	// Status is the count of subjects awaiting re-indexing at the end.
	Status IndexStatus
}

// syncBatch is how many pending subjects one read returns.
const syncBatch = 256

// Sync brings the index up to date: it indexes the subjects awaiting
// re-indexing, a batch at a time, until none is left or a whole batch
// wrote nothing (its subjects keep changing; the next run takes them),
// then counts what is left and records it as the index status. It is one
// pass of the background [Indexer] (which paces it), and what tests and
// the command run.
func (d *Discovery) Sync(ctx context.Context) (IndexReport, error) {
	return d.sync(ctx, nil)
}

// sync is Sync; pace, when not nil, is called after each subject with the
// time its indexing took, and stops the pass early by returning false.
func (d *Discovery) sync(ctx context.Context, pace func(context.Context, time.Duration) bool) (IndexReport, error) {
	var rep IndexReport
	for {
		today := calendar.Of(d.now().UTC()).String()
		ids, err := d.st.PendingSubjects(ctx, today, syncBatch)
		if err != nil {
			return rep, err
		}
		wrote, err := d.indexAll(ctx, ids, 1, d.indexPending, pace)
		if err != nil {
			return rep, err
		}
		rep.Indexed += wrote
		rep.Skipped += len(ids) - wrote
		if len(ids) < syncBatch || wrote == 0 || ctx.Err() != nil {
			break
		}
	}
	st, err := d.CheckPending(ctx)
	rep.Status = st
	return rep, err
}

// CheckPending counts the subjects awaiting re-indexing and records the
// count as the index status.
func (d *Discovery) CheckPending(ctx context.Context) (IndexStatus, error) {
	now := d.now().UTC()
	return d.st.CheckPending(ctx, calendar.Of(now).String(), now)
}

// Rebuild recomputes the entry of every agent, whatever its indexed
// revision says, with workers agents at a time (at least one), then
// refreshes the database's statistics of the index and records the index
// status. progress, when not nil, is called after each
// batch with the number of agents done. A rebuild gives the entries that
// incremental maintenance gives.
func (d *Discovery) Rebuild(ctx context.Context, workers int, progress func(done int)) (IndexReport, error) {
	var rep IndexReport
	var after issuer.AgentID
	for {
		ids, err := d.st.AgentsAfter(ctx, after, syncBatch)
		if err != nil {
			return rep, err
		}
		wrote, err := d.indexAll(ctx, ids, workers, d.IndexSubject, nil)
		if err != nil {
			return rep, err
		}
		rep.Indexed += wrote
		rep.Skipped += len(ids) - wrote
		if progress != nil {
			progress(rep.Indexed + rep.Skipped)
		}
		if len(ids) < syncBatch {
			break
		}
		after = ids[len(ids)-1]
	}
	if err := d.st.AnalyzeIndex(ctx); err != nil {
		return rep, err
	}
	st, err := d.CheckPending(ctx)
	rep.Status = st
	return rep, err
}

// indexAll indexes ids with index, workers at a time, and returns how
// many entries it wrote; it stops at the first failure, and when pace (if
// not nil), called by a worker after each subject with the time it took,
// returns false.
func (d *Discovery) indexAll(ctx context.Context, ids []issuer.AgentID, workers int, index func(context.Context, issuer.AgentID) (bool, error), pace func(context.Context, time.Duration) bool) (int, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan issuer.AgentID)
	var (
		mu    sync.Mutex
		wrote int
		wg    sync.WaitGroup
	)
	for range max(1, workers) {
		wg.Go(func() {
			for id := range next {
				t0 := time.Now()
				ok, err := index(ctx, id)
				if err != nil {
					cancel(err)
					return
				}
				if ok {
					mu.Lock()
					wrote++
					mu.Unlock()
				}
				if pace != nil && !pace(ctx, time.Since(t0)) {
					cancel(nil)
					return
				}
			}
		})
	}
feed:
	for _, id := range ids {
		select {
		case next <- id:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil && err != context.Canceled {
		return wrote, err
	}
	return wrote, nil
}

// IndexerOptions configure an [Indexer]. The zero value is ready to use.
type IndexerOptions struct {
	// Poll is the time between two sweeps for subjects awaiting
	// re-indexing; DefaultIndexPoll when zero.
	Poll time.Duration
	// NoSweep leaves sweeping to another process: the indexer re-indexes
	// only the subjects [Indexer.Changed] names. Only for PostgreSQL,
	// where notifications name them, and only when another process on the
	// database sweeps.
	NoSweep bool
	// Share is the largest share of its time the indexer spends
	// indexing, above 0 and at most 1: after each subject it pauses for
	// the time the subject took times (1-Share)/Share, so that re-indexing
	// a burst of changed subjects never takes more than Share of a core
	// from the requests whose writes caused it. DefaultIndexShare when
	// zero; 1 never pauses.
	Share float64
	// Logger receives failures; discarded when nil.
	Logger *slog.Logger
}

// DefaultIndexPoll is the time between two sweeps of the indexer.
const DefaultIndexPoll = 5 * time.Second

// DefaultIndexShare is the share of its time the indexer spends indexing
// unless told otherwise: one fifth, so that a burst of writes pays for its
// re-indexing with freshness (the index lags) rather than with latency.
const DefaultIndexShare = 0.2

// Indexer keeps the discovery index up to date in the background: it
// re-indexes a subject as soon as a revision notification names it
// ([Indexer.Changed]), and sweeps every Poll for the subjects the
// notifications missed (SQLite has none; a lost connection loses some),
// were never indexed, or were assessed before today ([Discovery.Sync]).
// Several processes over one database each run one: every change is heard
// by all and indexed by the first to claim it, the others skipping it.
type Indexer struct {
	d       *Discovery
	poll    time.Duration
	share   float64
	noSweep bool
	log     *slog.Logger
	wake    chan struct{}

	mu     sync.Mutex
	queued map[issuer.AgentID]bool
	sweep  bool
}

// NewIndexer returns a background indexer of d; start it with Run.
func (d *Discovery) NewIndexer(opts IndexerOptions) *Indexer {
	ix := &Indexer{d: d, poll: opts.Poll, share: opts.Share, noSweep: opts.NoSweep, log: opts.Logger, wake: make(chan struct{}, 1), queued: map[issuer.AgentID]bool{}}
	if ix.poll <= 0 {
		ix.poll = DefaultIndexPoll
	}
	if !(ix.share > 0 && ix.share <= 1) { // also NaN
		ix.share = DefaultIndexShare
	}
	if ix.log == nil {
		ix.log = slog.New(slog.DiscardHandler)
	}
	return ix
}

// Changed queues id for re-indexing, or a full sweep when id is "", and
// wakes the indexer. It never blocks: it is what the revision listener
// calls for every notification.
func (ix *Indexer) Changed(id issuer.AgentID) {
	ix.mu.Lock()
	if id == "" {
		ix.sweep = true
	} else {
		ix.queued[id] = true
	}
	ix.mu.Unlock()
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// Run indexes until ctx ends, and returns nil then. It sweeps at once,
// then whenever Poll has passed or a sweep was asked for, and re-indexes
// queued subjects as they come. Failures are logged and retried at the
// next sweep; they never stop it.
func (ix *Indexer) Run(ctx context.Context) error {
	tick := time.NewTicker(ix.poll)
	defer tick.Stop()
	ix.Changed("")
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			ix.mu.Lock()
			ix.sweep = true
			ix.mu.Unlock()
		case <-ix.wake:
		}
		ix.mu.Lock()
		queued, sweep := ix.queued, ix.sweep
		ix.queued, ix.sweep = map[issuer.AgentID]bool{}, false
		ix.mu.Unlock()
		for id := range queued {
			if ctx.Err() != nil {
				return nil
			}
			t0 := time.Now()
			if _, err := ix.d.indexPending(ctx, id); err != nil && ctx.Err() == nil {
				ix.log.WarnContext(ctx, "discovery: re-indexing a subject failed; the next sweep retries", "agent", id, "err", err)
			}
			ix.pause(ctx, time.Since(t0))
		}
		if sweep && !ix.noSweep {
			rep, err := ix.d.sync(ctx, ix.pause)
			if err != nil && ctx.Err() == nil {
				ix.log.WarnContext(ctx, "discovery: index sweep failed; retrying at the next", "err", err)
			} else if rep.Indexed > 0 {
				ix.log.InfoContext(ctx, "discovery: index swept", "indexed", rep.Indexed, "skipped", rep.Skipped,
					"changed", rep.Status.Changed, "aged", rep.Status.Aged)
			}
		}
	}
}

// pause waits after work that took d, so that working stays within the
// indexer's share of its time; it reports false when ctx ended meanwhile.
func (ix *Indexer) pause(ctx context.Context, d time.Duration) bool {
	p := pauseAfter(d, ix.share)
	if p <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(p)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// pauseAfter is the pause after work that took d which keeps working
// within share of the time: d × (1−share)/share.
func pauseAfter(d time.Duration, share float64) time.Duration {
	if share >= 1 || d <= 0 {
		return 0
	}
	return time.Duration(float64(d) * (1 - share) / share)
}
