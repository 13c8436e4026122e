package issuer

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// Public identifiers are a prefix, an underscore and 26 lower-case base32
// characters (128 random bits). Internal database keys never leave the
// issuer; these are the only identifiers a caller sees.
type (
	// AgentID identifies an agent: agt_….
	AgentID string
	// OperatorID identifies an operator, the known owner of agents: op_….
	OperatorID string
	// MemoryID identifies a published memory: mem_….
	MemoryID string
	// ReceiptID identifies a consultation receipt: rcp_….
	ReceiptID string
	// ValidationID identifies an evaluator's position on a memory, stable
	// across its revisions: fb_….
	ValidationID string
)

// The identifier prefixes.
const (
	agentPrefix      = "agt"
	operatorPrefix   = "op"
	memoryPrefix     = "mem"
	receiptPrefix    = "rcp"
	validationPrefix = "fb"
)

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

const idRandomBytes = 16

var idTextLen = idEncoding.EncodedLen(idRandomBytes)

func newID[T ~string](prefix string, rand io.Reader) (T, error) {
	var b [idRandomBytes]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return "", fmt.Errorf("new %s id: %w", prefix, err)
	}
	return T(prefix + "_" + idEncoding.EncodeToString(b[:])), nil
}

func parseID[T ~string](prefix, s string) (T, error) {
	rest, ok := strings.CutPrefix(s, prefix+"_")
	if !ok || len(rest) != idTextLen {
		return "", Errorf(CodeInvalid, "%q is not a %s_ identifier", truncate(s, 40), prefix)
	}
	if _, err := idEncoding.DecodeString(rest); err != nil {
		return "", Errorf(CodeInvalid, "%q is not a %s_ identifier", truncate(s, 40), prefix)
	}
	return T(s), nil
}

// NewAgentID returns a fresh agent ID read from rand.
func NewAgentID(rand io.Reader) (AgentID, error) { return newID[AgentID](agentPrefix, rand) }

// NewOperatorID returns a fresh operator ID read from rand.
func NewOperatorID(rand io.Reader) (OperatorID, error) {
	return newID[OperatorID](operatorPrefix, rand)
}

// NewMemoryID returns a fresh memory ID read from rand.
func NewMemoryID(rand io.Reader) (MemoryID, error) { return newID[MemoryID](memoryPrefix, rand) }

// NewReceiptID returns a fresh receipt ID read from rand.
func NewReceiptID(rand io.Reader) (ReceiptID, error) { return newID[ReceiptID](receiptPrefix, rand) }

// NewValidationID returns a fresh validation ID read from rand.
func NewValidationID(rand io.Reader) (ValidationID, error) {
	return newID[ValidationID](validationPrefix, rand)
}

// ParseAgentID checks that s is an agent ID.
func ParseAgentID(s string) (AgentID, error) { return parseID[AgentID](agentPrefix, s) }

// ParseOperatorID checks that s is an operator ID.
func ParseOperatorID(s string) (OperatorID, error) { return parseID[OperatorID](operatorPrefix, s) }

// ParseMemoryID checks that s is a memory ID.
func ParseMemoryID(s string) (MemoryID, error) { return parseID[MemoryID](memoryPrefix, s) }

// ParseReceiptID checks that s is a receipt ID.
func ParseReceiptID(s string) (ReceiptID, error) { return parseID[ReceiptID](receiptPrefix, s) }

// APIKey is an agent's secret bearer credential: pk_ and 52 base32
// characters (256 random bits). The issuer stores only its [APIKey.Hash].
type APIKey string

const (
	apiKeyPrefix      = "pk_"
	apiKeyRandomBytes = 32
)

// NewAPIKey returns a fresh key read from rand.
func NewAPIKey(rand io.Reader) (APIKey, error) {
	var b [apiKeyRandomBytes]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return "", fmt.Errorf("new api key: %w", err)
	}
	return APIKey(apiKeyPrefix + idEncoding.EncodeToString(b[:])), nil
}

// ParseAPIKey checks the form of a presented key before any lookup.
func ParseAPIKey(s string) (APIKey, error) {
	rest, ok := strings.CutPrefix(s, apiKeyPrefix)
	if !ok || len(rest) != idEncoding.EncodedLen(apiKeyRandomBytes) {
		return "", Errorf(CodeUnauthorized, "the API key is malformed")
	}
	if _, err := idEncoding.DecodeString(rest); err != nil {
		return "", Errorf(CodeUnauthorized, "the API key is malformed")
	}
	return APIKey(s), nil
}

// Hash returns the hex SHA-256 of the key, the form the issuer stores. A
// key carries 256 random bits, so a fast hash suffices.
func (k APIKey) Hash() string {
	h := sha256.Sum256([]byte(k))
	return hex.EncodeToString(h[:])
}

// truncate shortens s to at most n bytes on a rune boundary, for echoing
// hostile input in a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
