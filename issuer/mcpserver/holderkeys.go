package mcpserver

import (
	"context"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
)

// addHolderKeyTools registers holder_key_nonce and set_holder_keys, the
// tools of POST /api/agents/me/holder-keys/nonce and PUT
// /api/agents/me/holder-keys (SPEC.md §20).
func addHolderKeyTools(t *tools) {
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "holder_key_nonce",
		Title: "A nonce for holder-key proofs",
		Description: "A nonce for proving that you hold a key (publish scope), valid for 5 minutes. Sign " +
			`{"aud":"<this issuer's id>","nonce":"<the nonce>","sub":"<your agent id>"} (canonical JSON) with each key as a ` +
			`compact JWS whose protected header is exactly {"alg":"EdDSA" or "ES256","typ":"` + passport.HolderProofType + `"}, ` +
			"and pass the keys and proofs to set_holder_keys. The issuer's id is the issuer member of its trust file.",
		Annotations: writes(makesNew),
	}, t.holderKeyNonce)
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "set_holder_keys",
		Title: "Replace your holder keys",
		Description: "Replace your holder keys (publish scope): the public keys (Ed25519 or P-256 JWKs, at most 4) that may " +
			"present your passport, each with its proof of possession over a nonce from holder_key_nonce. An empty list " +
			"removes every key. Your passport names the keys by RFC 7638 thumbprint (cnf); a change issues a new passport. " +
			"Returns your keys as stored. A key another agent holds is refused with conflict.",
		InputSchema: holderKeysSchema(),
		Annotations: writes(replaces),
	}, t.setHolderKeys)
}

// NonceInput is the empty input of holder_key_nonce.
type NonceInput struct{}

func (t *tools) holderKeyNonce(ctx context.Context, p issuer.Principal, _ NonceInput) (issuer.HolderKeyNonce, error) {
	return t.app.HolderKeyNonce(ctx, p)
}

func (t *tools) setHolderKeys(ctx context.Context, p issuer.Principal, in issuer.HolderKeysRequest) (issuer.HolderKeys, error) {
	return t.app.SetHolderKeys(ctx, p, in)
}

// holderKeysSchema is the input schema of set_holder_keys: the one
// inferred from [issuer.HolderKeysRequest], with jwk an object and the
// bounds.
func holderKeysSchema() *jsonschema.Schema {
	s := schemaFor[issuer.HolderKeysRequest]("set_holder_keys")
	keys := s.Properties["keys"]
	keys.MaxItems = integer(issuer.MaxHolderKeys)
	keys.Description = "your whole set of holder keys, at most " + strconv.Itoa(issuer.MaxHolderKeys) + "; an empty list removes every key"
	p := keys.Items.Properties
	p["jwk"] = &jsonschema.Schema{Type: "object",
		Description: "the key's public JWK: kty OKP with crv Ed25519, or kty EC with crv P-256; no private member"}
	p["proof"].MaxLength = integer(passport.MaxHolderProof)
	p["proof"].Description = "the compact JWS the key made over a nonce from holder_key_nonce"
	return s
}
