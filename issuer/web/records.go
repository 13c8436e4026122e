package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
)

// recordsSize bounds the passports whose parsed evidence files are kept.
const recordsSize = 16

// records keeps, per passport hash, the records of its evidence file in
// leaf order, so that a page of sources can say each source's context
// without parsing the file on every view. A passport never changes, so
// neither do its records. It holds at most max passports, dropping the
// least recently used first, and is safe for concurrent use.
type records struct {
	mu    sync.Mutex
	max   int
	order []string
	sets  map[string][]evidence.Record
}

func newRecords(max int) *records {
	return &records{max: max, sets: map[string][]evidence.Record{}}
}

// of returns the records of is's evidence file, parsing it (evidence.Parse,
// which bounds it) the first time.
func (c *records) of(is *issuing.Issued) ([]evidence.Record, error) {
	c.mu.Lock()
	if rs, ok := c.sets[is.PassportHash]; ok {
		c.touch(is.PassportHash)
		c.mu.Unlock()
		return rs, nil
	}
	c.mu.Unlock()
	set, err := evidence.Parse(is.EvidenceFile)
	if err != nil {
		return nil, err
	}
	rs := set.Records()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.sets[is.PassportHash]; !ok {
		if len(c.order) == c.max {
			delete(c.sets, c.order[0])
			c.order = c.order[1:]
		}
		c.sets[is.PassportHash] = rs
		c.order = append(c.order, is.PassportHash)
	}
	return rs, nil
}

func (c *records) touch(h string) {
	if i := slices.Index(c.order, h); i >= 0 {
		c.order = append(slices.Delete(c.order, i, i+1), h)
	}
}

// contextText writes a record's context labels, "none stated" for none.
func contextText(c evidence.Context) string {
	var parts []string
	for i, v := range c.Values() {
		if v != "" {
			parts = append(parts, evidence.Dimensions[i]+": "+v)
		}
	}
	if len(parts) == 0 {
		return "none stated"
	}
	return strings.Join(parts, "; ")
}

// recordPath is the address of the page of the record ev of the passport
// hash, an agent's.
func recordPath(id issuer.AgentID, ev, hash string) string {
	return "/agents/" + url.PathEscape(string(id)) + "/evidence/" + url.PathEscape(ev) + "?" + url.Values{"passportHash": {hash}}.Encode()
}

// recordParams is the query of a record's page: the passport it belongs
// to, which its id is a pseudonym in.
var recordParams = issuer.QuerySpec{Params: issuer.Params("passportHash")}

// recordIDPattern is the form of a record id (SPEC.md §5.2).
var recordIDPattern = regexp.MustCompile(`^ev_[A-Za-z0-9_-]{1,64}$`)

// recordPage is the body of one evidence record's page.
type recordPage struct {
	ID, Name, ProfileURL string
	PassportHash         string
	// Current says that the record belongs to the passport the profile
	// shows now.
	Current bool
	Record  evidence.Record
	// Kind, Outcome, Quality and Ownership are the record's codes in
	// words; Context its labels.
	Kind, Outcome, Quality, Ownership, Context string
	// Inspect is the record in the passport's evidence file, as JSON.
	Inspect, EvidenceURL string
}

// record answers GET /agents/{publicId}/evidence/{evidenceId}?passportHash=H:
// one record of that passport's evidence file, in words (SPEC.md §18.8).
func (h *Handler) record(w http.ResponseWriter, r *http.Request) error {
	q, err := recordParams.Read(r.URL.RawQuery)
	if err != nil {
		return err
	}
	if len(q["passportHash"]) != 1 {
		return issuer.Errorf(issuer.CodeInvalid, "give the passport's hash once, as ?passportHash=<64 hex digits>")
	}
	hash, ev := q["passportHash"][0], r.PathValue("evidenceId")
	if !recordIDPattern.MatchString(ev) {
		return issuer.Errorf(issuer.CodeNotFound, "no such record in this passport")
	}
	var (
		page    recordPage
		missing bool // the agent is shown, and the passport or the record is not there
	)
	prof, err := h.readShown(r, func(ctx context.Context, id issuer.AgentID) error {
		file, err := h.cfg.Passports.Evidence(ctx, id, hash)
		if issuer.ErrorCode(err) == issuer.CodeNotFound {
			missing = true
			return nil
		}
		if err != nil {
			return err
		}
		set, err := evidence.Parse(file)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(set.Records(), func(rec evidence.Record) bool { return rec.ID == ev })
		if i < 0 {
			missing = true
			return nil
		}
		rec := set.Records()[i]
		page = recordPage{
			ID: string(id), ProfileURL: "/agents/" + url.PathEscape(string(id)), PassportHash: hash, Record: rec,
			Kind: string(rec.Type), Outcome: string(rec.Outcome), Quality: word(qualityWords, rec.Quality),
			Ownership: word(ownershipWords, rec.Ownership), Context: contextText(rec.Context),
			EvidenceURL: issuer.EvidenceFilePath(id, hash),
		}
		page.Inspect = page.EvidenceURL + "#/evidence/" + strconv.Itoa(i)
		if is, err := h.cfg.Passports.Latest(ctx, id, issuing.DisclosePreviews); err == nil {
			page.Current = is.PassportHash == hash
		}
		return nil
	})
	if err != nil {
		return err
	}
	if missing {
		return issuer.Errorf(issuer.CodeNotFound, "this agent has no record %s in a passport with that hash the issuer keeps", ev)
	}
	page.Name = prof.Name
	return h.render(w, http.StatusOK, "record", ev+" · "+prof.Name, "", page)
}
