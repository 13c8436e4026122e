package web

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/remnant/passportkit/internal/calendar"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/skilltrust"
)

// The drawing area of a timeline, in SVG user units: the chart scales to
// its box, so these are proportions, not pixels.
const (
	timelineWidth = 720
	timelineLeft  = 118 // room for the lane names
	timelineRight = 16
	timelineTop   = 12
	laneHeight    = 30
	timelineAxis  = 34 // room for the year labels
)

// timelineLanes are the kinds of source a timeline draws, one lane each,
// top to bottom: the four outcomes, then the other observations, then
// every kind that carries no weight by itself.
var timelineLanes = []struct{ key, label string }{
	{"success", "Success"},
	{"failure", "Failure"},
	{"partial", "Partial"},
	{"uncertain", "Uncertain"},
	{"corroboration", "Corroboration"},
	{"contradiction", "Contradiction"},
	{"other", "Other records"},
}

// laneOf names the lane of a source.
func laneOf(s issuer.EvidenceSource) string {
	switch evidence.Type(s.Type) {
	case evidence.TypeOutcome:
		return s.Outcome
	case evidence.TypeCorroboration, evidence.TypeContradiction:
		return s.Type
	}
	return "other"
}

// timelineView is one skill's sources over time: a server-rendered SVG,
// with its text alternative (Title, Desc and the table of Rows).
type timelineView struct {
	Title, Desc string
	// Partial says that the chart shows one page of a longer listing.
	Partial       bool
	Shown, Count  int
	Width, Height int
	// Plot is the drawing area's left and right edges and its bottom.
	PlotLeft, PlotRight, PlotBottom int
	Lanes                           []timelineLane
	Ticks                           []timelineTick
	Marks                           []timelineMark
	// StaleX, when StaleShown, is the day before which an eligible
	// observation is too old to keep the skill from being stale.
	StaleShown bool
	StaleX     int
	Stale      bool
	Contested  bool
	HalfLife   int
	Rows       []timelineRow
}

type timelineLane struct {
	Label string
	Y     int
}

type timelineTick struct {
	X     int
	Label string
}

// timelineMark is one source: a circle whose area is its final weight
// (after decay and caps), hollow when it carries none, with a ring when it
// is an unresolved contradiction.
type timelineMark struct {
	X, Y       int
	R          string
	Weighted   bool
	Unresolved bool
	Label      string
}

// timelineRow is a line of the text alternative: the sources of one kind
// in one year.
type timelineRow struct {
	Year, Kind string
	Sources    int
	Weight     string
	Unresolved int
}

// timelineOf draws the sources of ev (one page of a skill's listing) from
// their first day to the assessment day at (YYYY-MM-DD); stale and
// contested are the skill passport's flags.
func timelineOf(ev issuer.EvidencePage, at string, stale, contested bool) *timelineView {
	end, err := evidence.ParseDate(at)
	if err != nil || len(ev.Sources) == 0 {
		return nil
	}
	type src struct {
		s    issuer.EvidenceSource
		date evidence.Date
	}
	var srcs []src
	start := end
	for _, s := range ev.Sources {
		d, err := evidence.ParseDate(s.Date)
		if err != nil {
			continue
		}
		srcs = append(srcs, src{s, d})
		if d.Before(start) {
			start = d
		}
	}
	if len(srcs) == 0 {
		return nil
	}
	// At least a year wide, ending on the assessment day.
	if end.Sub(start) < 365 {
		start = end.AddDays(-365)
	}
	v := &timelineView{
		Shown: len(srcs), Count: ev.SourceCount, Partial: ev.SourceCount > len(ev.Sources) || ev.Offset > 0,
		Width: timelineWidth, PlotLeft: timelineLeft, PlotRight: timelineWidth - timelineRight,
		Stale: stale, Contested: contested, HalfLife: skilltrust.HalfLifeDays,
	}
	v.PlotBottom = timelineTop + laneHeight*len(timelineLanes)
	v.Height = v.PlotBottom + timelineAxis
	span := float64(end.Sub(start))
	x := func(d evidence.Date) int {
		return v.PlotLeft + int(math.Round(float64(d.Sub(start))/span*float64(v.PlotRight-v.PlotLeft)))
	}
	lane := map[string]int{}
	for i, l := range timelineLanes {
		y := timelineTop + laneHeight*i + laneHeight/2
		lane[l.key] = y
		v.Lanes = append(v.Lanes, timelineLane{Label: l.label, Y: y})
	}
	sy, _, _ := start.Civil()
	ey, _, _ := end.Civil()
	step := max(1, (ey-sy+1)/8)
	for y := sy + 1; y <= ey; y += step {
		v.Ticks = append(v.Ticks, timelineTick{X: x(calendar.FromCivil(y, 1, 1)), Label: strconv.Itoa(y)})
	}
	if b := end.AddDays(-skilltrust.StaleAfterDays); !b.Before(start) {
		v.StaleShown, v.StaleX = true, x(b)
	}
	maxW := 0.0
	for _, s := range srcs {
		maxW = max(maxW, s.s.Weight)
	}
	type key struct{ year, kind string }
	rows := map[key]*timelineRow{}
	for _, s := range srcs {
		k := laneOf(s.s)
		y, ok := lane[k]
		if !ok {
			k, y = "other", lane["other"]
		}
		r := 3.0
		if s.s.Weight > 0 && maxW > 0 {
			r = 3 + 9*math.Sqrt(s.s.Weight/maxW)
		}
		unresolved := s.s.Contradiction == "unresolved" && evidence.Type(s.s.Type) == evidence.TypeContradiction
		label := fmt.Sprintf("%s, %s: %s, weight %s", s.s.Evidence, s.s.Date, kindText(s.s), fixed(s.s.Weight))
		if unresolved {
			label += ", unresolved"
		}
		v.Marks = append(v.Marks, timelineMark{X: x(s.date), Y: y, R: strconv.FormatFloat(r, 'f', 1, 64),
			Weighted: s.s.Weight > 0, Unresolved: unresolved, Label: label})
		yr, _, _ := s.date.Civil()
		kk := key{strconv.Itoa(yr), k}
		row := rows[kk]
		if row == nil {
			row = &timelineRow{Year: kk.year, Kind: laneLabel(k)}
			rows[kk] = row
		}
		row.Sources++
		w, _ := strconv.ParseFloat(row.Weight, 64)
		row.Weight = fixed(w + s.s.Weight)
		if unresolved {
			row.Unresolved++
		}
	}
	for _, r := range rows {
		v.Rows = append(v.Rows, *r)
	}
	order := map[string]int{}
	for i, l := range timelineLanes {
		order[l.label] = i
	}
	slices.SortFunc(v.Rows, func(a, b timelineRow) int {
		if a.Year != b.Year {
			return strings.Compare(b.Year, a.Year) // latest year first
		}
		return order[a.Kind] - order[b.Kind]
	})
	v.Title = fmt.Sprintf("Timeline of %s: %d sources by kind, %s to %s", ev.Skill.Normalized, len(srcs), start, end)
	v.Desc = "Each source is a circle on its kind's line at its date; its area is its weight after decay and caps, hollow when it carries none. " +
		"An unresolved contradiction has a ring."
	if v.StaleShown {
		v.Desc += " The dashed line marks the day before which an observation is too old to keep the skill from being stale."
	}
	return v
}

// laneLabel is the name of the lane key.
func laneLabel(key string) string {
	for _, l := range timelineLanes {
		if l.key == key {
			return l.label
		}
	}
	return key
}

// kindText is a source's kind and outcome in words.
func kindText(s issuer.EvidenceSource) string {
	if s.Outcome != "" {
		return s.Type + " (" + s.Outcome + ")"
	}
	return s.Type
}
