package mcpserver

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
)

// outputTypes gives the schemas of the types whose JSON form is not their
// Go shape (a decimal written as a number, a time or a hash written as a
// string, a JSON value held as bytes), and of the labels whose values are
// a closed set, as enums (a reason code or a check name is not: new ones
// may come, and a client must read an unknown one). Any other type's
// schema is inferred from it: a member without omitempty is required, a
// pointer or a slice may be null, and a struct allows no other member.
var outputTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[reputation.Milli]():   {Type: "number"},
	reflect.TypeFor[passport.Time]():      {Type: "string", Format: "date-time"},
	reflect.TypeFor[time.Time]():          {Type: "string", Format: "date-time"},
	reflect.TypeFor[evidence.Hash]():      {Type: "string"},
	reflect.TypeFor[json.RawMessage]():    {},
	reflect.TypeFor[passport.PublicKey](): {Type: "object"},

	reflect.TypeFor[passport.SkillState](): enum(passport.StateNew, passport.StateLimitedEvidence, passport.StateEvidenced,
		passport.StateWellEvidenced),
	reflect.TypeFor[passport.EvidenceLevel](): enum(passport.LevelVeryLow, passport.LevelLow, passport.LevelModerate,
		passport.LevelStrong),
	reflect.TypeFor[passport.AssessmentLabel](): enum(passport.AssessmentContested, passport.AssessmentStale, passport.AssessmentNew,
		passport.AssessmentSupported, passport.AssessmentAdverseOutcomes, passport.AssessmentInsufficientEvidence),
	reflect.TypeFor[reputation.KnowledgeState](): enum(reputation.StateNew, reputation.StateContested, reputation.StateRobust,
		reputation.StateCorroborated, reputation.StateObserved),
	reflect.TypeFor[reputation.TrustLevel](): enum(reputation.TrustNew, reputation.TrustObserved, reputation.TrustTrusted,
		reputation.TrustHighTrust),
	reflect.TypeFor[reputation.Type]():  enum(reputation.Types[:]...),
	reflect.TypeFor[reputation.Phase](): enum(reputation.PhaseApply, reputation.PhaseCompensation, reputation.PhaseBaseline),
	reflect.TypeFor[evidence.Outcome](): enum(evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial,
		evidence.OutcomeUncertain),
	reflect.TypeFor[passport.Visibility]():  enum(passport.VisibilityNegativeResults, passport.VisibilityLimited),
	reflect.TypeFor[passport.Calibration](): enum(passport.CalibrationInsufficientData, passport.CalibrationAvailable),
	reflect.TypeFor[issuer.Scope]():         enum(issuer.AllScopes...),
	reflect.TypeFor[issuer.AgentStatus]():   enum(issuer.AgentActive, issuer.AgentSuspended),
	reflect.TypeFor[issuer.Visibility]():    enum(issuer.VisibilityPublic, issuer.VisibilityUnlisted, issuer.VisibilityPrivate),
}

// enum is the schema of a string label with the given values.
func enum[T ~string](values ...T) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, string(v))
	}
	return s
}

// outputSchema is the output schema inferred from Out: the schema of the
// structured content of every successful call of the tool.
func outputSchema[Out any](tool string) *jsonschema.Schema {
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: outputTypes})
	if err != nil {
		panic("mcpserver: output schema of " + tool + ": " + err.Error())
	}
	evictable(s)
	return s
}

// evictable lets the content of every memory in s be null: a memory
// whose body was evicted reads "content": null, "evicted": true (SPEC.md
// §15.10). A memory is an object with content, contentHash and evicted.
func evictable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if c, ok := s.Properties["content"]; ok && s.Properties["contentHash"] != nil && s.Properties["evicted"] != nil && c.Type == "string" {
		c.Type, c.Types = "", []string{"null", "string"}
	}
	for _, p := range s.Properties {
		evictable(p)
	}
	evictable(s.Items)
	for _, d := range s.Defs {
		evictable(d)
	}
}

// bundleSchema is the output schema of get_agent_passport: a passport
// bundle (SPEC.md §9), whose snapshot is an object and whose evidence is
// an array, empty when nothing is disclosed.
func bundleSchema() *jsonschema.Schema {
	s := outputSchema[passport.Bundle]("get_agent_passport")
	s.Properties["snapshot"] = &jsonschema.Schema{Type: "object"}
	s.Properties["evidence"].Types, s.Properties["evidence"].Type = nil, "array"
	return s
}
