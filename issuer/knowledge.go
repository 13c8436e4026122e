package issuer

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/remnant/passportkit/reputation"
)

// Bounds of evidence objects and artifacts (SPEC.md §15.8).
const (
	MaxEvidenceDetail = 1024    // bytes of an evidence object's detail
	MaxEvidenceEnv    = 200     // bytes of an evidence object's env
	MaxArtifactBytes  = 1 << 20 // bytes of one artifact
	MaxAcceptBody     = 4 << 10 // bytes of an accept request
)

// EvidenceType says what an evidence object's author did to check a memory.
type EvidenceType string

// The evidence types (ADR 0019 §1.1).
const (
	EvidenceOfTest   EvidenceType = "test"   // ran tests
	EvidenceOfRepro  EvidenceType = "repro"  // reproduced the result
	EvidenceOfHash   EvidenceType = "hash"   // found the same artifact hash
	EvidenceOfRun    EvidenceType = "run"    // executed the code or command
	EvidenceOfSource EvidenceType = "source" // checked against a cited source
)

// EvidenceTypes lists the evidence types in their fixed order.
var EvidenceTypes = []EvidenceType{EvidenceOfTest, EvidenceOfRepro, EvidenceOfHash, EvidenceOfRun, EvidenceOfSource}

// Evidence is the structured evidence a validation may carry. The zero
// value is no evidence object. It is comparable with ==.
type Evidence struct {
	Type   EvidenceType `json:"type"`
	Detail string       `json:"detail"`
	// Artifact is the digest of an uploaded artifact ("sha256:" and 64
	// lower-case hex digits), or "".
	Artifact string `json:"artifact,omitempty"`
	// Env is the environment the check ran in, or "".
	Env string `json:"env,omitempty"`
}

// Given reports whether e is an evidence object.
func (e Evidence) Given() bool { return e.Type != "" }

// EvidenceFactors are the node's evidence weights: what a position's
// effective weight is multiplied by where reader trust weighs it (SPEC.md
// §15.8), in thousandths. A position without an evidence object (free
// text or nothing) weighs ×1.
type EvidenceFactors struct {
	Object   reputation.Milli // an evidence object without an artifact
	Artifact reputation.Milli // an evidence object citing an artifact
}

// DefaultEvidenceFactors are ×1.5 for an object and ×2 with an artifact.
var DefaultEvidenceFactors = EvidenceFactors{Object: 1500, Artifact: 2000}

// MaxEvidenceFactor bounds an evidence factor: ×10.
const MaxEvidenceFactor reputation.Milli = 10000

// Check refuses factors below ×1 or above ×10, and an artifact factor
// below the object factor: evidence counts more than text, and a fetchable
// artifact more than none.
func (f EvidenceFactors) Check() error {
	if f.Object < reputation.One || f.Object > MaxEvidenceFactor || f.Artifact < f.Object || f.Artifact > MaxEvidenceFactor {
		return Errorf(CodeInvalid, "evidence factors must satisfy 1 <= object <= artifact <= 10")
	}
	return nil
}

// Of returns e's weight factor in thousandths.
func (f EvidenceFactors) Of(e Evidence) reputation.Milli {
	switch {
	case e.Artifact != "":
		return f.Artifact
	case e.Given():
		return f.Object
	}
	return reputation.One
}

// EvidenceRequest is the wire form of an evidence object.
type EvidenceRequest struct {
	Type     string  `json:"type"`
	Detail   string  `json:"detail"`
	Artifact *string `json:"artifact,omitempty"`
	Env      *string `json:"env,omitempty"`
}

// Normalize checks r and returns its normalised form.
func (r EvidenceRequest) Normalize() (Evidence, error) {
	var e Evidence
	switch t := EvidenceType(r.Type); t {
	case EvidenceOfTest, EvidenceOfRepro, EvidenceOfHash, EvidenceOfRun, EvidenceOfSource:
		e.Type = t
	default:
		return e, Errorf(CodeInvalid, "evidence.type %q is not one of test, repro, hash, run, source", truncate(r.Type, 40))
	}
	var err error
	if e.Detail, err = cleanText("evidence.detail", r.Detail, 1, MaxEvidenceDetail, proseText); err != nil {
		return e, err
	}
	if len(e.Detail) > MaxEvidenceDetail {
		return e, Errorf(CodeInvalid, "evidence.detail must be at most %d bytes", MaxEvidenceDetail)
	}
	if !SafeText(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(e.Detail), MaxEvidenceDetail) {
		return e, Errorf(CodeInvalid, "evidence.detail holds markup or text addressed to a reading model")
	}
	if r.Env != nil {
		if e.Env, err = cleanText("evidence.env", *r.Env, 1, MaxEvidenceEnv, lineText); err != nil {
			return e, err
		}
		if len(e.Env) > MaxEvidenceEnv {
			return e, Errorf(CodeInvalid, "evidence.env must be at most %d bytes", MaxEvidenceEnv)
		}
		if !SafeText(e.Env, MaxEvidenceEnv) {
			return e, Errorf(CodeInvalid, "evidence.env holds markup or text addressed to a reading model")
		}
	}
	if r.Artifact != nil {
		if e.Artifact, err = ParseArtifactDigest(*r.Artifact); err != nil {
			return e, err
		}
	}
	return e, nil
}

// ArtifactDigest returns the digest naming content: "sha256:" and the
// lower-case hex SHA-256, the form of a memory's contentHash.
func ArtifactDigest(content []byte) string {
	sum := sha256.Sum256(content)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ParseArtifactDigest checks that s is an artifact digest: "sha256:" and
// 64 lower-case hex digits.
func ParseArtifactDigest(s string) (string, error) {
	hexPart, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hexPart) != 64 || strings.ToLower(hexPart) != hexPart {
		return "", Errorf(CodeInvalid, "artifact %q is not sha256: and 64 lower-case hex digits", truncate(s, 80))
	}
	if _, err := hex.DecodeString(hexPart); err != nil {
		return "", Errorf(CodeInvalid, "artifact %q is not sha256: and 64 lower-case hex digits", truncate(s, 80))
	}
	return s, nil
}

// Artifact is an uploaded artifact's description.
type Artifact struct {
	Digest    string    `json:"digest"`
	Size      int       `json:"size"`
	CreatedAt time.Time `json:"createdAt"`
	// Created reports whether this upload stored the content; false when
	// the same content was stored before (the upload is deduplicated).
	Created bool `json:"created"`
}

// Accept is a consulting agent's acceptance of the memory that solved its
// consultation.
type Accept struct {
	Receipt  ReceiptID `json:"receiptId"`
	MemoryID MemoryID  `json:"memoryId"`
	// Replaced is the memory accepted before, when this accept replaced
	// another one; the latest accept counts.
	Replaced  MemoryID  `json:"replaced,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ParseAccept decodes the body of an accept: {"memoryId": …}.
func ParseAccept(body []byte) (MemoryID, error) {
	var r struct {
		MemoryID string `json:"memoryId"`
	}
	if err := Decode(body, MaxAcceptBody, &r); err != nil {
		return "", err
	}
	return ParseMemoryID(r.MemoryID)
}
