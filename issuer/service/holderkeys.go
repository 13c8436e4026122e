package service

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
)

// HolderKeyStore is what reading holder keys needs of a database; their
// replacement runs over an [Executor]. issuer/store implements it for
// PostgreSQL and SQLite.
type HolderKeyStore interface {
	// HolderKeys returns p's holder keys in byte order of thumbprint.
	HolderKeys(ctx context.Context, p issuer.Principal) ([]issuer.HolderKey, error)
}

// HolderKeyState is what a store read for the replacement of an agent's
// holder keys.
type HolderKeyState struct {
	// Held are the agent's holder keys as stored.
	Held []issuer.HolderKey
	// Owners holds, by thumbprint, the agent each requested key is bound
	// to, for the keys that are bound.
	Owners map[string]int64
}

// HolderKeyPlan replaces an agent's holder keys: the thumbprints removed
// and the keys added, bound now.
type HolderKeyPlan struct {
	Now       time.Time
	Agent     int64
	Remove    []string
	Add       []issuer.HolderKey
	Revisions []RevisionWrite
	Audit     *AuditWrite
}

// HolderNoncePurpose is the seal purpose of the nonces of proofs of
// possession.
const HolderNoncePurpose = "holder-key-nonce"

// holderNonceVersion is the first byte of a nonce's sealed payload, which
// then holds the expiry (Unix seconds, 8 bytes big-endian), 16 random
// bytes and the agent's public id.
const holderNonceVersion = 1

// HolderKeyNonce hands p a nonce for proofs of possession (publish scope):
// sealed with the service's cursor sealer, bound to p, and accepted until
// issuer.HolderKeyNonceTTL from now (SPEC.md §20.1).
func (s *Service) HolderKeyNonce(ctx context.Context, p issuer.Principal) (issuer.HolderKeyNonce, error) {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return issuer.HolderKeyNonce{}, err
	}
	exp := s.now().UTC().Add(issuer.HolderKeyNonceTTL).Truncate(time.Second)
	payload := make([]byte, 25, 25+len(p.AgentID))
	payload[0] = holderNonceVersion
	binary.BigEndian.PutUint64(payload[1:9], uint64(exp.Unix()))
	if _, err := io.ReadFull(s.rand, payload[9:25]); err != nil {
		return issuer.HolderKeyNonce{}, fmt.Errorf("service: nonce: %w", err)
	}
	payload = append(payload, p.AgentID...)
	return issuer.HolderKeyNonce{Nonce: s.cursors.Seal(HolderNoncePurpose, payload), ExpiresAt: exp}, nil
}

// checkNonce checks that nonce is one this service handed to p and that
// it has not expired.
func (s *Service) checkNonce(p issuer.Principal, nonce string) error {
	b, err := s.cursors.Open(HolderNoncePurpose, nonce)
	if err != nil || len(b) < 25 || b[0] != holderNonceVersion {
		return issuer.Errorf(issuer.CodeHolderNonceInvalid, "the nonce is not one this issuer handed out, or it was altered")
	}
	if !bytes.Equal(b[25:], []byte(p.AgentID)) {
		return issuer.Errorf(issuer.CodeHolderNonceInvalid, "the nonce was handed to another agent")
	}
	exp := time.Unix(int64(binary.BigEndian.Uint64(b[1:9])), 0).UTC()
	if !s.now().Before(exp) {
		return issuer.Errorf(issuer.CodeHolderNonceExpired, "the nonce expired at %s; ask for a new one", exp.Format(time.RFC3339))
	}
	return nil
}

// SetHolderKeys replaces p's holder keys (publish scope) with the keys of
// req, each proved by its holder, checked in this order (SPEC.md §20.2):
// keys present (invalid_request), at most issuer.MaxHolderKeys
// (too_many_items), each key an Ed25519 or P-256 public JWK
// (holder_key_invalid), no key twice (invalid_request), then each proof in
// turn: made by its key under the profile, for this issuer and p
// (holder_proof_invalid), over a nonce handed to p (holder_nonce_invalid)
// that has not expired (holder_nonce_expired). A key bound to another agent
// is then conflict. Removing or adding a key bumps p's subject revision.
func (s *Service) SetHolderKeys(ctx context.Context, p issuer.Principal, req issuer.HolderKeysRequest) (issuer.HolderKeys, error) {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return issuer.HolderKeys{}, err
	}
	keys, err := s.provenKeys(p, req.Keys)
	if err != nil {
		return issuer.HolderKeys{}, err
	}
	thumbprints := make([]string, len(keys))
	for i, k := range keys {
		thumbprints[i] = k.Thumbprint
	}
	var out []issuer.HolderKey
	err = s.store.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadHolderKeys(ctx, p.Key, thumbprints)
		if err != nil {
			return err
		}
		var plan *HolderKeyPlan
		plan, out, err = planHolderKeys(st, p, keys, s.timestamp(), s.rand)
		if err != nil || plan == nil {
			return err
		}
		return ex.WriteHolderKeys(ctx, plan)
	})
	if err != nil {
		return issuer.HolderKeys{}, err
	}
	return holderKeys(out), nil
}

// planHolderKeys decides the replacement of p's holder keys by keys
// (distinct, at most issuer.MaxHolderKeys, proved): a key to add that is
// bound to another agent is a conflict, the first in keys' order; an
// unchanged set writes nothing; a change makes p's passport stale and is
// audited with the thumbprints added and removed. It returns the plan and
// the set as it then stands, in byte order of thumbprint.
func planHolderKeys(st *HolderKeyState, p issuer.Principal, keys []issuer.HolderKey, now time.Time, rand io.Reader) (*HolderKeyPlan, []issuer.HolderKey, error) {
	held := map[string]bool{}
	for _, h := range st.Held {
		held[h.Thumbprint] = true
	}
	plan := &HolderKeyPlan{Now: now, Agent: p.Key}
	wanted := map[string]bool{}
	added := []string{}
	for _, k := range keys {
		wanted[k.Thumbprint] = true
		if held[k.Thumbprint] {
			continue
		}
		if owner, bound := st.Owners[k.Thumbprint]; bound && owner != p.Key {
			return nil, nil, issuer.Errorf(issuer.CodeConflict, "the holder key %s is bound to another agent", k.Thumbprint)
		}
		k.CreatedAt = now
		plan.Add = append(plan.Add, k)
		added = append(added, k.Thumbprint)
	}
	var out []issuer.HolderKey
	for _, h := range st.Held {
		if wanted[h.Thumbprint] {
			out = append(out, h)
		} else {
			plan.Remove = append(plan.Remove, h.Thumbprint)
		}
	}
	out = append(out, plan.Add...)
	slices.SortFunc(out, func(a, b issuer.HolderKey) int { return cmp.Compare(a.Thumbprint, b.Thumbprint) })
	if len(plan.Add) == 0 && len(plan.Remove) == 0 {
		return nil, out, nil
	}
	var err error
	if plan.Revisions, err = newRevisions(rand, staleSubjects(p.Key, nil, false)); err != nil {
		return nil, nil, err
	}
	removed := append([]string{}, plan.Remove...)
	slices.Sort(added)
	slices.Sort(removed)
	plan.Audit = &AuditWrite{Actor: string(p.AgentID), Action: "agent.holder_keys_set", Subject: string(p.AgentID),
		Detail: map[string]any{"added": added, "removed": removed}}
	return plan, out, nil
}

// provenKeys checks the keys of a request and their proofs, and returns
// them as the store keeps them.
func (s *Service) provenKeys(p issuer.Principal, in []issuer.HolderKeyProof) ([]issuer.HolderKey, error) {
	if in == nil {
		return nil, issuer.Errorf(issuer.CodeInvalid, "keys is required (an empty list removes every holder key)")
	}
	if len(in) > issuer.MaxHolderKeys {
		return nil, issuer.Errorf(issuer.CodeTooManyItems, "keys lists %d keys; an agent holds at most %d", len(in), issuer.MaxHolderKeys)
	}
	pubs := make([]*passport.PublicKey, len(in))
	seen := map[string]int{}
	for i, k := range in {
		if len(k.JWK) == 0 {
			return nil, issuer.Errorf(issuer.CodeHolderKeyInvalid, "keys[%d].jwk is required", i)
		}
		pub, err := passport.ParseHolderKey(k.JWK)
		if err != nil {
			return nil, naming(fmt.Sprintf("keys[%d].jwk", i), &issuer.Error{Code: issuer.CodeHolderKeyInvalid, Message: err.Error(), Err: err})
		}
		if j, dup := seen[pub.KeyID()]; dup {
			return nil, issuer.Errorf(issuer.CodeInvalid, "keys[%d] and keys[%d] are the same key", j, i)
		}
		seen[pub.KeyID()], pubs[i] = i, pub
	}
	out := make([]issuer.HolderKey, len(in))
	for i, k := range in {
		if err := s.checkProof(p, pubs[i], k.Proof); err != nil {
			return nil, naming(fmt.Sprintf("keys[%d].proof", i), err)
		}
		jwk, err := pubs[i].MarshalJSON()
		if err == nil {
			jwk, err = passport.Canonicalize(jwk)
		}
		if err != nil {
			return nil, fmt.Errorf("service: holder key: %w", err)
		}
		out[i] = issuer.HolderKey{Thumbprint: pubs[i].KeyID(), Algorithm: string(pubs[i].Algorithm()), JWK: jwk}
	}
	return out, nil
}

// checkProof checks one proof of possession of key by p.
func (s *Service) checkProof(p issuer.Principal, key *passport.PublicKey, proof string) error {
	if proof == "" {
		return issuer.Errorf(issuer.CodeHolderProofInvalid, "a proof of possession is required for every key")
	}
	claims, err := passport.VerifyHolderProof(proof, key)
	switch {
	case err != nil:
		return &issuer.Error{Code: issuer.CodeHolderProofInvalid, Message: err.Error(), Err: err}
	case s.issuerID == "":
		return errors.New("service: no issuer identifier is configured: holder keys cannot be proved")
	case claims.Audience != s.issuerID:
		return issuer.Errorf(issuer.CodeHolderProofInvalid, "the proof's aud is not this issuer, %s", s.issuerID)
	case claims.Subject != string(p.AgentID):
		return issuer.Errorf(issuer.CodeHolderProofInvalid, "the proof's sub is not the calling agent, %s", p.AgentID)
	}
	return s.checkNonce(p, claims.Nonce)
}

// naming prefixes the caller's message of err with the member it is
// about.
func naming(member string, err error) error {
	e, ok := errors.AsType[*issuer.Error](err)
	if !ok {
		return err
	}
	return &issuer.Error{Code: e.Code, Message: member + ": " + e.Message, Err: e.Err}
}

// HolderKeys returns p's own holder keys (any scope).
func (s *Service) HolderKeys(ctx context.Context, p issuer.Principal) (issuer.HolderKeys, error) {
	out, err := s.store.HolderKeys(ctx, p)
	return holderKeys(out), err
}

// holderKeys is the answer listing keys: an empty list, never null.
func holderKeys(keys []issuer.HolderKey) issuer.HolderKeys {
	if keys == nil {
		keys = []issuer.HolderKey{}
	}
	return issuer.HolderKeys{Keys: keys}
}
