package issuing

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/skilltrust"
)

// Signer signs a passport and its evidence as a bundle: the issuer's
// active key. *passport.Signer is one. The leaves are the records'
// canonical JSON, as the collection holds them, so they are not
// canonicalised again; SignTree returns the bundle with the passport's
// passportHash.
type Signer interface {
	SignTree(p *passport.Passport, tree *evidence.Tree, leaves [][]byte, disclose []int) (bundle []byte, passportHash string, err error)
}

var _ Signer = (*passport.Signer)(nil)

// Disclosure says which evidence records a bundle carries with their
// inclusion proofs; the passport commits to all of them either way.
type Disclosure string

// The disclosure modes.
const (
	// DisclosePreviews discloses the records behind every skill passport's
	// source previews, and only those. It is the default.
	DisclosePreviews Disclosure = "previews"
	// DiscloseAll discloses every record, so that a verifier can recompute
	// every skill passport from the bundle alone. A bundle that would pass
	// passport.MaxBundleSize is refused with a *BundleTooLargeError.
	DiscloseAll Disclosure = "all"
	// DiscloseNone discloses no record.
	DiscloseNone Disclosure = "none"
)

// ParseDisclosure reads a disclosure mode; "" is DisclosePreviews.
func ParseDisclosure(s string) (Disclosure, error) {
	switch d := Disclosure(s); d {
	case "":
		return DisclosePreviews, nil
	case DisclosePreviews, DiscloseAll, DiscloseNone:
		return d, nil
	}
	return "", issuer.Errorf(issuer.CodeInvalid, "unknown disclosure %q (want previews, all or none)", clip(s))
}

// DefaultValidity is how long a passport is valid when Options.Validity is
// zero: reputation moves, so passports are short-lived and reissued.
const DefaultValidity = 7 * 24 * time.Hour

// Options are what an issuance needs besides the subject.
type Options struct {
	// Issuer is the issuer identifier the trust file names. Required.
	Issuer string
	// IssuedAt is the issuance time (truncated to the second); its UTC
	// day is the assessment day of every skill passport. Required.
	IssuedAt time.Time
	// Validity is the time from issuance to expiry; zero means
	// DefaultValidity.
	Validity time.Duration
	// Status is the passport's entry in its issuer's status list, written
	// as its status member; nil when the issuer keeps no lists.
	Status *passport.StatusRef
}

func (o Options) check() error {
	switch {
	case o.Issuer == "":
		return errors.New("issuing: an issuer identifier is required")
	case o.IssuedAt.IsZero() || !dated(o.IssuedAt.UTC()):
		return errors.New("issuing: an issuance time is required")
	case o.Validity < 0:
		return fmt.Errorf("issuing: negative validity %v", o.Validity)
	}
	return nil
}

// BundleTooLargeError is returned when the bundle asked for would pass
// passport.MaxBundleSize; an HTTP transport answers 413 with its figures.
type BundleTooLargeError struct {
	Disclosure Disclosure
	Size       int // bytes the bundle would have
	Limit      int
}

func (e *BundleTooLargeError) Error() string {
	return fmt.Sprintf("issuing: the bundle with disclosure %s would be %d bytes; the limit is %d", e.Disclosure, e.Size, e.Limit)
}

// Draft is an assembled, unsigned passport with its evidence: everything
// Sign needs. Build one with Assemble.
type Draft struct {
	// Passport is the document to sign; EvidenceRoot and EvidenceCount are
	// set.
	Passport passport.Passport
	// Revision is the revision of the subject the passport was assembled
	// from (Subject.Revision): the store state it describes.
	Revision   string
	collection *Collection
	tree       *evidence.Tree
	previews   []int // leaf indices behind the source previews, sorted
}

// Issued is a signed passport: the bundle and the complete evidence file
// (SPEC.md §5.1) from which anyone can re-derive every figure.
type Issued struct {
	// Bundle is the canonical bundle (SPEC.md §9).
	Bundle []byte
	// EvidenceFile is the canonical evidence file of every record the
	// passport commits to, with its evidenceRoot and passportHash.
	EvidenceFile []byte
	// PassportHash identifies the passport; an ETag quotes it.
	PassportHash string
	// Passport is the signed document.
	Passport passport.Passport
	// Revision is the subject revision the passport describes (see
	// Draft.Revision); it is not part of the passport.
	Revision string
	// PreviewMemories are the memories the records behind the source
	// previews name (lineage.memory), sorted and distinct: public ids, or
	// pseudonyms for memories that may not be named.
	PreviewMemories []string
}

// Issue collects, assembles and signs a passport for s, disclosing
// records as d says. key is the fresh per-passport pseudonym key (see
// Collect).
func Issue(s *Subject, key []byte, signer Signer, opt Options, d Disclosure) (*Issued, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	c, err := Collect(s, key, opt.IssuedAt)
	if err != nil {
		return nil, err
	}
	draft, err := Assemble(s, c, opt)
	if err != nil {
		return nil, err
	}
	return draft.Sign(signer, d)
}

// Assemble builds the passport of s from its collection: the outer
// members of passport.Version (cnf naming s's holder keys, when it has
// any, and status from opt), at most passport.MaxSkillPassports skill
// passports assessed as of the issuance day, and the evidence root over
// every record.
func Assemble(s *Subject, c *Collection, opt Options) (*Draft, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	validity := cmp.Or(opt.Validity, DefaultValidity)
	issued := passport.NewTime(opt.IssuedAt)
	at := calendar.Of(issued.UTC())

	skills, err := assessSkills(c, chooseSkills(c, at), at)
	if err != nil {
		return nil, err
	}
	hashes := make([]evidence.Hash, len(c.Leaves))
	var lh evidence.LeafHasher
	for i, l := range c.Leaves {
		hashes[i] = lh.Sum(l)
	}
	tree := evidence.NewTree(hashes)

	p := passport.Passport{
		PassportVersion: passport.Version, TrustModelVersion: passport.TrustModelVersion,
		Issuer: opt.Issuer,
		Subject: passport.Subject{
			ID: string(s.PublicID), Name: issuer.PublicName(s.Name), Description: issuer.PublicDescription(s.Description),
		},
		IssuedAt: issued, ExpiresAt: passport.NewTime(issued.Add(validity)),
		DeclaredCapabilities: declared(s.Capabilities),
		PublicActivity: passport.Activity{
			MemoriesPublished: s.Activity.MemoriesPublished, MemoriesConsumed: s.Activity.MemoriesConsumed,
			FeedbackGiven: s.Activity.FeedbackGiven,
		},
		DomainReputation: domains(s.Domains),
		ReputationScore:  milli(s.ReputationScore),
		TrustLevel:       string(cmp.Or(s.TrustLevel, reputation.TrustNew)),
		SkillPassports:   skills,
		Policies:         passport.DefaultPolicies(),
		EvidenceRoot:     tree.Root().String(),
		EvidenceCount:    len(c.Leaves),
	}
	if len(s.HolderKeys) > 0 {
		p.Cnf = &passport.Confirmation{JKTs: slices.Sorted(slices.Values(s.HolderKeys))}
	}
	if opt.Status != nil {
		status := *opt.Status
		p.Status = &status
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("issuing: %w", err)
	}

	index := make(map[string]int, len(c.Records))
	for i := range c.Records {
		index[c.Records[i].ID] = i
	}
	var previews []int
	for _, sp := range skills {
		for _, src := range sp.Sources {
			i, ok := index[src.Evidence]
			if !ok {
				return nil, fmt.Errorf("issuing: skill %s previews unknown record %s", sp.Skill, src.Evidence)
			}
			previews = append(previews, i)
		}
	}
	slices.Sort(previews)
	return &Draft{Passport: p, Revision: s.Revision, collection: c, tree: tree, previews: slices.Compact(previews)}, nil
}

// Collection returns the evidence the draft was assembled from.
func (dr *Draft) Collection() *Collection { return dr.collection }

// Sign signs the draft with signer and returns the bundle disclosing what
// d asks for, with the complete evidence file.
func (dr *Draft) Sign(signer Signer, d Disclosure) (*Issued, error) {
	var disclose []int
	switch d {
	case DisclosePreviews, "":
		d, disclose = DisclosePreviews, dr.previews
	case DiscloseAll:
		disclose = make([]int, len(dr.collection.Leaves))
		for i := range disclose {
			disclose[i] = i
		}
	case DiscloseNone:
	default:
		return nil, issuer.Errorf(issuer.CodeInvalid, "unknown disclosure %q", clip(string(d)))
	}
	leaves := dr.collection.Leaves
	p := dr.Passport
	bundle, hash, err := signer.SignTree(&p, dr.tree, leaves, disclose)
	if passport.ReasonOf(err) == passport.ReasonBundleTooLarge {
		size, serr := dr.bundleSize(signer, leaves, disclose)
		if serr != nil {
			return nil, serr
		}
		tl := &BundleTooLargeError{Disclosure: d, Size: size, Limit: passport.MaxBundleSize}
		return nil, &issuer.Error{Code: issuer.CodeTooLarge, Err: tl,
			Message: fmt.Sprintf("the passport bundle with disclosure %s would be %d bytes, over the limit of %d; ask for disclose=previews and fetch the evidence file", d, size, passport.MaxBundleSize)}
	}
	if err != nil {
		return nil, fmt.Errorf("issuing: sign: %w", err)
	}
	return &Issued{
		Bundle: bundle, PassportHash: hash, Passport: p, Revision: dr.Revision,
		EvidenceFile:    evidenceFile(dr.collection, dr.tree.Root().String(), hash),
		PreviewMemories: dr.previewMemories(),
	}, nil
}

// previewMemories returns the memories the preview records name.
func (dr *Draft) previewMemories() []string {
	var out []string
	for _, i := range dr.previews {
		if l := dr.collection.Records[i].Lineage; l != nil && l.Memory != "" {
			out = append(out, l.Memory)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// bundleSize is the size the bundle disclosing every index in disclose
// would have: the bundle without evidence, plus each disclosure's canonical
// JSON and the commas between them.
func (dr *Draft) bundleSize(signer Signer, leaves [][]byte, disclose []int) (int, error) {
	p := dr.Passport
	bare, _, err := signer.SignTree(&p, dr.tree, leaves, nil)
	if err != nil {
		return 0, fmt.Errorf("issuing: sign: %w", err)
	}
	size := len(bare) + max(0, len(disclose)-1)
	for _, i := range disclose {
		proof, err := dr.tree.Proof(i)
		if err != nil {
			return 0, err
		}
		if proof == nil {
			proof = []evidence.Hash{}
		}
		b, err := passport.Marshal(passport.Disclosure{Index: i, Leaf: dr.collection.Leaves[i], Proof: proof})
		if err != nil {
			return 0, err
		}
		size += len(b)
	}
	return size, nil
}

// evidenceFile writes the canonical evidence file: members in canonical
// order, evidenceTruncated only when true.
func evidenceFile(c *Collection, root, hash string) []byte {
	size := 256
	for _, l := range c.Leaves {
		size += len(l) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"evidence":[`...)
	for i, l := range c.Leaves {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l...)
	}
	b = append(b, `],"evidenceRoot":"`...)
	b = append(b, root...)
	b = append(b, '"')
	if c.Truncated {
		b = append(b, `,"evidenceTruncated":true`...)
	}
	b = append(b, `,"passportHash":"`...)
	b = append(b, hash...)
	return append(b, `"}`...)
}

// declared returns the distinct declared capabilities in byte order.
func declared(cs []Capability) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func domains(ds []issuer.DomainReputation) []passport.DomainReputation {
	out := make([]passport.DomainReputation, 0, len(ds))
	for _, d := range ds {
		out = append(out, passport.DomainReputation{
			Domain: d.Domain, Score: milli(d.Score), Confidence: milli(d.Confidence), SampleSize: d.SampleSize,
			PositiveEvents: d.PositiveEvents, NegativeEvents: d.NegativeEvents, UpdatedAt: passport.NewTime(d.UpdatedAt),
		})
	}
	slices.SortFunc(out, func(x, y passport.DomainReputation) int { return strings.Compare(x.Domain, y.Domain) })
	return out
}

func milli(m reputation.Milli) float64 { return float64(m) / float64(reputation.One) }

// skillStat is what chooses among more than MaxSkillPassports skills.
type skillStat struct {
	name                       string
	contested                  bool
	distinct, unknown, records int
}

// chooseSkills returns the normalised skills the passport lists, in byte
// order: every skill its records name, or when they name more than
// passport.MaxSkillPassports, the ones SPEC.md §4.16 puts first.
func chooseSkills(c *Collection, at evidence.Date) []string {
	o := skilltrust.Skills1()
	stats := map[string]*skillStat{}
	norm := map[string]string{}
	resolved := map[string]bool{}
	for i := range c.Records {
		r := &c.Records[i]
		if r.Type == evidence.TypeResolution && !r.Date.After(at) {
			resolved[r.Resolves] = true
		}
	}
	for i := range c.Records {
		r := &c.Records[i]
		n, ok := norm[r.Skill]
		if !ok {
			n = o.Normalize(r.Skill).Name
			norm[r.Skill] = n
		}
		st := stats[n]
		if st == nil {
			st = &skillStat{name: n}
			stats[n] = st
		}
		st.records++
		if !r.Type.Observation() || r.Date.After(at) {
			continue
		}
		switch r.Ownership {
		case evidence.OwnershipDistinct:
			st.distinct++
		case evidence.OwnershipUnknown:
			st.unknown++
		default:
			continue
		}
		if r.Type == evidence.TypeContradiction && !resolved[r.ID] {
			st.contested = true
		}
	}
	all := make([]*skillStat, 0, len(stats))
	for _, st := range stats {
		all = append(all, st)
	}
	slices.SortFunc(all, func(x, y *skillStat) int {
		switch {
		case x.contested != y.contested:
			if x.contested {
				return -1
			}
			return 1
		case x.distinct != y.distinct:
			return cmp.Compare(y.distinct, x.distinct)
		case x.unknown != y.unknown:
			return cmp.Compare(y.unknown, x.unknown)
		case x.records != y.records:
			return cmp.Compare(y.records, x.records)
		}
		return strings.Compare(x.name, y.name)
	})
	names := make([]string, 0, min(len(all), passport.MaxSkillPassports))
	for _, st := range all[:min(len(all), passport.MaxSkillPassports)] {
		names = append(names, st.name)
	}
	slices.Sort(names)
	return names
}

// assessSkills assesses each skill with no task context as of at, in one
// pass over the evidence.
func assessSkills(c *Collection, skills []string, at evidence.Date) ([]passport.SkillPassport, error) {
	tasks := make([]skilltrust.Task, len(skills))
	for i, sk := range skills {
		tasks[i] = skilltrust.Task{Skill: sk}
	}
	as, err := skilltrust.AssessSkills(c.Set(), tasks, at)
	if err != nil {
		return nil, fmt.Errorf("issuing: assess: %w", err)
	}
	out := make([]passport.SkillPassport, 0, len(skills))
	for _, a := range as {
		sp, err := a.SkillPassport()
		if err != nil {
			return nil, fmt.Errorf("issuing: skill passport %s: %w", a.Skill, err)
		}
		out = append(out, sp)
	}
	return out, nil
}
