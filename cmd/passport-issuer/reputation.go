package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
)

// reputationCmd groups the reputation commands.
type reputationCmd struct {
	Rebuild reputationRebuildCmd `cmd:"" help:"Rebuild an author's aggregates and counters from its journal."`
	Recount reputationRecountCmd `cmd:"" help:"Recount every agent's activity counters (published, retrievals, consultations, feedback given) from history, and correct those that differ."`
	Show    reputationShowCmd    `cmd:"" help:"Show the numbers behind a reader's view: each author's propagated trust, cold-start floor and weight, and whether search and the feed show the author to that reader."`
}

type reputationShowCmd struct {
	Reader string `required:"" help:"The reader's agent ID (agt_...): whose view."`
	Author string `help:"Only this author's numbers (agt_...); by default the authors the reader's trust reaches, heaviest first (at most 50)."`
}

func (c *reputationShowCmd) Run(e *env) error {
	reader, err := issuer.ParseAgentID(c.Reader)
	if err != nil {
		return err
	}
	var author issuer.AgentID
	if c.Author != "" {
		if author, err = issuer.ParseAgentID(c.Author); err != nil {
			return err
		}
	}
	return e.withStore(func(db *store.DB) error {
		ws, err := service.New(db, service.Options{}).ReaderNumbers(e.ctx, reader, author)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "the view of %s (its own trust set); agents see labels and counts only\n", reader)
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "author\ttrust\tfloor\tweight\tshown")
		for _, w := range ws {
			shown := "hidden"
			if w.Shown {
				shown = "shown"
			}
			fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%s\n", w.Author, w.Trust, w.Floor, w.Weight, shown)
		}
		return tw.Flush()
	})
}

type reputationRecountCmd struct {
	Check bool `help:"Only report each counter that differs from history, stored against counted; change nothing (exit 1 when any does)."`
}

func (c *reputationRecountCmd) Run(e *env) error {
	return e.withAdmin(func(a *service.Admin) error {
		drift, err := a.CheckActivity(e.ctx)
		if err != nil {
			return err
		}
		if len(drift) == 0 {
			fmt.Fprintln(e.stdout, "activity counters match history")
		} else {
			printDrift(e.stdout, drift)
		}
		if c.Check {
			if len(drift) > 0 {
				fmt.Fprintf(e.stdout, "the activity counters of %s differ from history; `passport-issuer reputation recount` corrects them\n",
					plural(len(drift), "agent", "agents"))
				return cli.Silent(cli.ExitFailed)
			}
			return nil
		}
		n, err := a.RebuildActivity(e.ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "corrected the activity counters of %s\n", plural(n, "agent", "agents"))
		return nil
	})
}

// printDrift writes an aligned table with one row per counter that
// differs from history: the agent, the counter as the API names it, the
// stored figure and the counted one.
func printDrift(w io.Writer, drift []service.ActivityDrift) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcounter\tstored\tcounted")
	for _, d := range drift {
		for _, c := range []struct {
			name            string
			stored, counted int
		}{
			{"memoriesPublished", d.Stored.MemoriesPublished, d.Counted.MemoriesPublished},
			{"retrievals", d.Stored.Retrievals, d.Counted.Retrievals},
			{"consultations", d.Stored.Consultations, d.Counted.Consultations},
			{"feedbackGiven", d.Stored.FeedbackGiven, d.Counted.FeedbackGiven},
		} {
			if c.stored != c.counted {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", d.Agent, c.name, c.stored, c.counted)
			}
		}
	}
	tw.Flush()
}

type reputationRebuildCmd struct {
	Agent string `arg:"" help:"Agent ID (agt_...)."`
}

func (c *reputationRebuildCmd) Run(e *env) error {
	agent, err := issuer.ParseAgentID(c.Agent)
	if err != nil {
		return cli.Usage(err)
	}
	var progress func(done, total int)
	if isTerminal(e.stderr) {
		progress = func(done, total int) { drawBar(e.stderr, done, total) }
	}
	return e.withAdmin(func(a *service.Admin) error {
		rep, err := a.RebuildReputation(e.ctx, agent, progress)
		if progress != nil {
			fmt.Fprintln(e.stderr)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "rebuilt %s from %s in %s\n", rep.Agent, plural(rep.Events, "journal entry", "journal entries"), plural(rep.Domains, "domain", "domains"))
		fmt.Fprintf(e.stdout, "score %s, trust %s; %s checked\n", rep.Score, rep.Trust, plural(rep.Memories, "memory summary", "memory summaries"))
		if rep.Corrected == 0 {
			fmt.Fprintln(e.stdout, "derived records matched the journal; nothing rewritten")
		} else {
			fmt.Fprintf(e.stdout, "corrected %s\n", plural(rep.Corrected, "derived record", "derived records"))
		}
		return nil
	})
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// drawBar redraws a one-line progress bar.
func drawBar(w io.Writer, done, total int) {
	const width = 30
	frac := 1.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	n := int(frac * width)
	fmt.Fprintf(w, "\r[%s%s] %3.0f%% %d/%d entries", strings.Repeat("#", n), strings.Repeat(".", width-n), frac*100, done, total)
}

// plural formats n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
