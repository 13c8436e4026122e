package service

import (
	"context"
	"crypto/sha256"
	"encoding/binary"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
)

// JournalPurpose is the seal purpose of the reputation journal's cursors.
const JournalPurpose = "reputation-journal"

const (
	journalVersion     = 1
	journalBindingSize = 16
	journalPayloadSize = 1 + journalBindingSize + 8
)

// Reputation explains an agent's reputation to p (search scope): the
// page of its journal that q names. A cursor is opened before the agent
// is looked up, and only for the journal, query and viewer it was sealed
// for (SPEC.md §13.5); any other is cursor_invalid, whether the agent
// exists or not.
func (s *Service) Reputation(ctx context.Context, p issuer.Principal, id issuer.AgentID, q issuer.ReputationQuery) (issuer.ReputationReport, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return issuer.ReputationReport{}, err
	}
	bind := journalBinding(p.AgentID, id, q.Domain)
	q.After = 0 // a position comes from a cursor only
	if q.Cursor != "" {
		after, err := openJournalCursor(s.cursors, bind, q.Cursor)
		if err != nil {
			return issuer.ReputationReport{}, err
		}
		q.After = after
	}
	rep, err := s.store.Reputation(ctx, p, id, q)
	if err != nil {
		return issuer.ReputationReport{}, err
	}
	if rep.HasMore {
		rep.NextCursor = sealJournalCursor(s.cursors, bind, rep.Last)
	}
	return rep, nil
}

// journalBinding names the listing a journal cursor belongs to: the
// viewer's public id, the agent whose journal it is and the normalised
// domain filter, each preceded by its length in 4 bytes big-endian, under
// SHA-256 cut to 16 bytes.
func journalBinding(viewer, agent issuer.AgentID, domain string) [journalBindingSize]byte {
	h := sha256.New()
	for _, part := range []string{string(viewer), string(agent), domain} {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(part))))
		h.Write([]byte(part))
	}
	return [journalBindingSize]byte(h.Sum(nil))
}

// sealJournalCursor returns the cursor of the position after the journal
// key last in the listing bind: a version byte, the binding and the key (8
// bytes, big-endian), in a hidden token, for the key is internal.
func sealJournalCursor(sl *seal.Sealer, bind [journalBindingSize]byte, last int64) string {
	b := make([]byte, 0, journalPayloadSize)
	b = append(b, journalVersion)
	b = append(b, bind[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(last))
	return sl.SealHidden(JournalPurpose, b)
}

// openJournalCursor returns the journal key a cursor sealed for the
// listing bind follows: a positive key. Anything else is cursor_invalid.
func openJournalCursor(sl *seal.Sealer, bind [journalBindingSize]byte, token string) (int64, error) {
	b, err := sl.OpenHidden(JournalPurpose, token)
	ok := err == nil && len(b) == journalPayloadSize && b[0] == journalVersion &&
		[journalBindingSize]byte(b[1:1+journalBindingSize]) == bind
	var key int64
	if ok {
		key = int64(binary.BigEndian.Uint64(b[1+journalBindingSize:]))
	}
	if key <= 0 {
		return 0, issuer.Errorf(issuer.CodeCursorInvalid,
			"cursor is not one this service returned for this journal: pass back the nextCursor of a page of the same agent and domain, read with the same API key")
	}
	return key, nil
}
