// Package ledger reads and scores REPUTATION.md, the file in which an agent
// keeps its own record of the counterparties it deals with — agents,
// services, stores and firms — and of how each dealing went.
//
// The package is pure: it reads no files, opens no connections and never
// looks at the clock. The day a file is read "as of" is always an argument.
//
// # The file
//
// A REPUTATION.md file is Markdown with one record per line. Frontmatter
// between "---" lines gives the format version (reputation: 1), the owner
// and the day the owner last wrote to the file. Three sections follow:
//
//	## Counterparties   - id · kind · categories · note
//	## Events           - date · counterparty · type · amount · note
//	## Rules            - key: value
//
// Fields are separated by " · " or " | ". An id is 1 to 120 lower-case
// characters with no white space or comma: a handle (agent:courier-12), a
// domain or a URL. The kinds are [Kinds]; the event types are [EventTypes].
// An amount is a plain number in the owner's unit, with no sign, currency or
// separator; when the fourth field of an event is not a number it is the
// note.
//
// [Parse] is lenient: a line it cannot read is skipped and named with its
// line number in [File].Issues, and a rule value that cannot be used leaves
// the default in force. It is also bounded: it refuses input over
// [MaxBytes] or [MaxLines] with [ErrTooLarge], and skips lines over
// [MaxLineBytes]. [File.Canonical] writes the records sorted and each value
// one way; [File.Document] is the same content as JSON, with the SHA-256 of
// the canonical text, so two copies with the same hash hold the same
// records and settings.
//
// # Scores and tiers
//
// [File.Score] reads one counterparty as of a day. An event's age is the
// days from its date to as_of, its decay 0.5^(age / half_life_days), and
// its contribution the weight of its type times its decay. Positive
// contributions add up to the positive mass, negative ones (as magnitudes)
// to the negative mass, and the two to the evidence mass:
//
//	score      = 50 + 50 × (positive_mass − negative_mass) / (evidence_mass + 2)
//	confidence = effective_events / (effective_events + 2)
//
// where effective_events is the sum of the decays. The 2 is a neutral prior:
// a counterparty starts at 50 and needs evidence to move, and with no new
// events it drifts back. Amounts never weigh in; they are summed per type.
//
// [TierFor] turns a score and an event count into a [Tier]: blocked below
// the watch minimum, unrated (treated as watch) with fewer than min_events
// events, else trusted, standard or watch. An id on the blocked list is
// blocked whatever its score. Trusted and standard may be paid up to their
// spend per task without asking; watch and unrated ask first; blocked holds
// off. A tier only ever decides whether to go ahead, ask or hold off: it is
// never a finding about anyone.
//
// # Tools
//
//   - [Check]: every finding about a file, each with its line and severity.
//   - [File.Score] and [File.Rank]: one counterparty, or all of them.
//   - [TierFor]: the tier for a score and an event count.
//   - [DecayCurve]: a score traced forward with no new events, and the exact
//     day it crosses each tier line.
//   - [File.PathToTier]: the fewest events of one type that would lift a
//     counterparty into a tier, and how long until it decays to a threshold.
//   - [Merge]: two files of the same owner joined, with every conflict.
//   - [Template] and [StarterFor]: new files, plain or tuned for one kind
//     of dealing.
//   - [File.Share] and [CheckSummary]: a summary another agent can check
//     against its id, the SHA-256 of its RFC 8785 canonical JSON.
//
// # Text is data
//
// Notes, categories and prose in a file are what the owner wrote about a
// dealing. Nothing in this package acts on them; [Check] flags text that
// reads like an instruction to whoever reads the file, so that a person can
// look at it.
package ledger
