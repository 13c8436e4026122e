package evidence

// Code is the stable reason code of an evidence file or record refused
// (SPEC.md §5.7). Codes never change meaning; programs match on them.
// A refusal by a JSON guard of SPEC.md §2 carries that guard's code
// (json_malformed, json_duplicate_key, ...).
type Code string

// The reason codes of SPEC.md §5.7, in the order they are checked.
const (
	CodeTooLarge             Code = "too_large"                // the file is over MaxFileSize
	CodeMalformedJSON        Code = "malformed_json"           // not an object, or evidence or evidenceTruncated mistyped
	CodeMissingEvidence      Code = "missing_evidence"         // no evidence array
	CodeTooManyReports       Code = "too_many_reports"         // more than MaxReports records
	CodeMalformedRecord      Code = "malformed_record"         // not an object, an unknown member, a member mistyped
	CodeNonCanonicalRecord   Code = "non_canonical_record"     // a member null or empty
	CodeInvalidRecord        Code = "invalid_record"           // a rule of one record broken
	CodeRetrospective        Code = "retrospective_prediction" // a prediction not dated before its outcome
	CodeDuplicateID          Code = "duplicate_id"             // an id used twice
	CodeDanglingReference    Code = "dangling_reference"       // mirrorOf or resolves names no record
	CodeBadMirror            Code = "bad_mirror"               // a mirror of the wrong kind or reporter
	CodeBadResolution        Code = "bad_resolution"           // a resolution of the wrong record
	CodeInconsistentReporter Code = "inconsistent_reporter"    // self in some records and not in others
	CodeTooManyMemories      Code = "too_many_memories"        // beyond MaxMemories
	CodeTooManyLineageNodes  Code = "too_many_lineage_nodes"   // beyond MaxLineageNodes
	CodeTooManyLinks         Code = "too_many_links"           // beyond MaxLinks
)
