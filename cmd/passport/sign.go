package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
)

// maxSignInput bounds the unsigned passport file.
const maxSignInput = 64 << 20

type signCmd struct {
	Key      string        `help:"Private key file." required:"" placeholder:"FILE" type:"path"`
	Issuer   string        `help:"Issuer id to sign as; the trust file must name it." required:""`
	TTL      time.Duration `name:"ttl" help:"How long the passport is valid." default:"720h"`
	IssuedAt string        `help:"Issuance time (RFC 3339); default now." placeholder:"RFC3339"`
	Disclose string        `help:"Evidence to disclose: all, none, or indices such as 0,3,7." default:"all"`
	Holder   []string      `name:"holder-key" help:"A holder key (private or public JWK, Ed25519 or P-256) the passport names in cnf, so that its holder can present it (passport present); repeat for up to 4." placeholder:"FILE" type:"path"`
	File     string        `arg:"" help:"Unsigned passport: {\"passport\":{…},\"evidence\":[…]}." placeholder:"PASSPORT.json" type:"path"`
}

// unsigned is the input of sign.
type unsigned struct {
	Passport json.RawMessage   `json:"passport"`
	Evidence []json.RawMessage `json:"evidence"`
}

func (c *signCmd) Run(e *env) error {
	signer, err := loadSigner(e, c.Key)
	if err != nil {
		return err
	}
	in, err := readBounded(e, c.File, maxSignInput)
	if err != nil {
		return err
	}
	if err := passport.CheckStrict(in); err != nil {
		return cli.Usage(fmt.Errorf("%s: %w", c.File, err))
	}
	var doc unsigned
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return cli.Usage(fmt.Errorf("%s: %w", c.File, err))
	}
	if len(doc.Passport) == 0 {
		return cli.Usage(fmt.Errorf("%s: no passport member", c.File))
	}
	if err := checkInputSkills(doc.Passport); err != nil {
		return cli.Usage(fmt.Errorf("%s: passport: %w", c.File, err))
	}
	var p passport.Passport
	dec = json.NewDecoder(bytes.NewReader(doc.Passport))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return cli.Usage(fmt.Errorf("%s: passport: %w", c.File, err))
	}
	now := time.Now()
	if c.IssuedAt != "" {
		if now, err = time.Parse(time.RFC3339, c.IssuedAt); err != nil {
			return cli.Usage(fmt.Errorf("--issued-at: %w", err))
		}
	}
	if c.TTL <= 0 {
		return cli.Usage(errors.New("--ttl must be positive"))
	}
	p.Issuer = c.Issuer
	p.IssuedAt = passport.NewTime(now)
	p.ExpiresAt = passport.NewTime(now.Add(c.TTL))
	// A passport signed now is of the version this package writes, so
	// that its payload carries the JWT claims, whatever minor version the
	// input names; an unknown major version is refused below.
	if p.PassportVersion == "" || passport.CheckVersion("passportVersion", p.PassportVersion, passport.Version) == nil {
		p.PassportVersion = passport.Version
	}
	if p.TrustModelVersion == "" {
		p.TrustModelVersion = passport.TrustModelVersion
	}
	if p.Policies == (passport.Policies{}) {
		p.Policies = passport.DefaultPolicies()
	}
	if p.Cnf, err = c.confirmation(e); err != nil {
		return err
	}
	disclose, err := parseDisclose(c.Disclose, len(doc.Evidence))
	if err != nil {
		return cli.Usage(err)
	}
	bundle, err := signer.Sign(&p, doc.Evidence, disclose)
	if err != nil {
		return cli.Exit(cli.ExitFailed, err)
	}
	_, err = e.stdout.Write(bundle)
	return err
}

// parseDisclose reads "all", "none" or a comma-separated list of indices.
func parseDisclose(s string, n int) ([]int, error) {
	switch s {
	case "all":
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	case "none", "":
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 || i >= n {
			return nil, fmt.Errorf("--disclose: %q is not an index below %d", f, n)
		}
		if len(out) > 0 && i <= out[len(out)-1] {
			return nil, fmt.Errorf("--disclose: indices must increase")
		}
		out = append(out, i)
	}
	return out, nil
}

// checkInputSkills checks each skill passport of an unsigned passport as it
// is given, in canonical form: its members follow SPEC.md §4.1 and its
// assessmentHash is over those members (§4.14). A skill passport that
// passes re-encodes to exactly these bytes, so the hash holds for what is
// signed; Sign checks that again over the signed bytes.
func checkInputSkills(raw json.RawMessage) error {
	var body struct {
		TrustModelVersion string            `json:"trustModelVersion"`
		SkillPassports    []json.RawMessage `json:"skillPassports"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return err
	}
	// The skill passports are of the version the passport will be signed
	// with: the one it names, else TrustModelVersion.
	version := body.TrustModelVersion
	if version == "" {
		version = passport.TrustModelVersion
	}
	form, err := passport.SkillFormOf(version)
	if err != nil {
		return err
	}
	for i, sp := range body.SkillPassports {
		c, err := passport.Canonicalize(sp)
		if err != nil {
			return fmt.Errorf("skillPassports[%d]: %w", i, err)
		}
		if err := passport.CheckSkillPassportJSON(c, form); err != nil {
			return fmt.Errorf("skillPassports[%d]: %w", i, err)
		}
	}
	return nil
}

// confirmation returns the cnf member naming the --holder-key keys, nil
// for none.
func (c *signCmd) confirmation(e *env) (*passport.Confirmation, error) {
	if len(c.Holder) == 0 {
		return nil, nil
	}
	cnf := &passport.Confirmation{}
	for _, name := range c.Holder {
		pub, err := readPublicKey(e, name)
		if err != nil {
			return nil, err
		}
		cnf.JKTs = append(cnf.JKTs, pub.KeyID())
	}
	slices.Sort(cnf.JKTs)
	if err := cnf.Validate(); err != nil {
		return nil, cli.Usage(fmt.Errorf("--holder-key: %w", err))
	}
	return cnf, nil
}
