package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
)

// The issuer's status lists (SPEC.md §19.4).
const (
	// StatusListBits is the width of an entry: valid, revoked, suspended.
	StatusListBits = 2
	// StatusListCapacity is how many entries a list holds. A new list is
	// opened once half of them are reserved.
	StatusListCapacity = 1 << 20
	// StatusListTTL is the ttl of a list token: how long a reader may use
	// it before fetching it again.
	StatusListTTL = 300 * time.Second
	// StatusListLifetime is from a list token's iat to its exp.
	StatusListLifetime = 24 * time.Hour
	// StatusListRefresh is the oldest token served: an older one is
	// signed again, so that a reader's copy outlives its ttl by at most
	// this much if it keeps it for the whole max-age it was given.
	StatusListRefresh = 60 * time.Second
	// StatusListDebounce bounds how often a list is encoded again after
	// its entries change, and so how much older than a change a served
	// token may be.
	StatusListDebounce = time.Second
)

// StatusSlot is a reserved entry of a status list: where a passport's
// status lives.
type StatusSlot struct {
	List issuer.StatusListID
	Idx  int
}

// StatusListVersion is what a status list token depends on besides time:
// the version of the list's entries, which every change of an entry's
// status replaces, and the keys epoch, which every key change replaces.
type StatusListVersion struct {
	Entries   int64
	KeysEpoch string
}

// StatusListState is a status list as its entries stand: its shape, the
// version of its entries, and every entry that is not valid.
type StatusListState struct {
	Version  int64
	Bits     int
	Capacity int
	Set      []StatusEntry
}

// StatusEntry is one entry of a status list and its status.
type StatusEntry struct {
	Idx    int
	Status issuer.PassportStatus
}

// StatusStore is what serving status lists needs of a database.
// issuer/store implements it.
type StatusStore interface {
	// StatusListVersion returns what list id's token depends on, in one
	// read; an unknown list is not_found.
	StatusListVersion(ctx context.Context, id issuer.StatusListID) (StatusListVersion, error)
	// StatusListState returns list id as its entries stand, the version
	// read first.
	StatusListState(ctx context.Context, id issuer.StatusListID) (StatusListState, error)
}

// StatusListURI returns the URI of the list id of the issuer issuerID:
// {issuer}/status/{id}, and false when issuerID is not a URL such a URI
// may extend (https, or http on a loopback host; SPEC.md §3).
func StatusListURI(issuerID string, id issuer.StatusListID) (string, bool) {
	uri := strings.TrimSuffix(issuerID, "/") + "/status/" + string(id)
	ref := passport.StatusRef{StatusList: passport.StatusListRef{URI: uri}}
	if strings.ContainsAny(issuerID, "?#") || ref.Validate() != nil {
		return "", false
	}
	return uri, true
}

// StatusListsEnabled reports whether an issuer named issuerID keeps
// status lists: whether its identifier is a URL a list's URI extends.
func StatusListsEnabled(issuerID string) bool {
	_, ok := StatusListURI(issuerID, "sl_aaaaaaaaaaaaaaaaaaaaaaaaaa")
	return ok
}

// StatusListOptions configure [StatusLists]. The zero value is ready to
// use.
type StatusListOptions struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

// StatusLists serves the issuer's status list tokens. Each list's token is
// kept and served again while it stays current:
//
//   - a change of the list's entries is encoded again, at most once per
//     StatusListDebounce: a served token never misses a change committed
//     more than StatusListDebounce before it is served;
//   - a key change (a rotation, retirement or withdrawal: the keys epoch)
//     has the list signed again by the key then active, so no token of a
//     withdrawn key is served once its withdrawal commits;
//   - a token older than StatusListRefresh is signed again.
//
// Encoding a full list is the costly part (it compresses 256 KiB); a key
// change or a refresh only signs again.
type StatusLists struct {
	st   StatusStore
	keys ActiveKey
	now  func() time.Time

	mu    sync.Mutex
	lists map[issuer.StatusListID]*servedList
}

// servedList is the token of one list and what it was made from.
type servedList struct {
	mu      sync.Mutex
	version int64     // of the entries lst encodes
	encoded time.Time // when they were read
	lst     statuslist.Encoded
	epoch   string // keys epoch the token was signed under
	token   []byte
	etag    string
	iat     time.Time
}

// NewStatusLists returns the status lists of st, signed with keys.
func NewStatusLists(st StatusStore, keys ActiveKey, opts StatusListOptions) *StatusLists {
	s := &StatusLists{st: st, keys: keys, now: opts.Now, lists: map[issuer.StatusListID]*servedList{}}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Token returns the current token of list id, as served now. An unknown
// list is not_found; no active key is unavailable.
func (s *StatusLists) Token(ctx context.Context, id issuer.StatusListID) (issuer.StatusListToken, error) {
	uri, ok := StatusListURI(s.keys.Issuer(), id)
	if !ok {
		return issuer.StatusListToken{}, issuer.Errorf(issuer.CodeNotFound, "the issuer keeps no status lists")
	}
	v, err := s.st.StatusListVersion(ctx, id)
	if err != nil {
		return issuer.StatusListToken{}, err
	}
	l := s.list(id)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := s.now()
	changed := l.version < v.Entries
	if l.token == nil || l.epoch != v.KeysEpoch || now.Sub(l.iat) >= StatusListRefresh ||
		changed && now.Sub(l.encoded) >= StatusListDebounce {
		if l.token == nil || changed {
			if err := l.encode(ctx, s.st, id, now); err != nil {
				return issuer.StatusListToken{}, err
			}
		}
		if err := l.sign(ctx, s.keys, uri); err != nil {
			return issuer.StatusListToken{}, err
		}
		l.epoch = v.KeysEpoch
	}
	return issuer.StatusListToken{Token: l.token, ETag: l.etag, MaxAge: maxAge(l.iat, now)}, nil
}

// maxAge is how long after now a reader may keep a token issued at iat:
// the ttl less the token's age rounded up to the second.
func maxAge(iat, now time.Time) time.Duration {
	age := max(0, now.Sub(iat))
	if r := age % time.Second; r != 0 {
		age += time.Second - r
	}
	return max(0, StatusListTTL-age)
}

// list returns the served state of list id, creating it.
func (s *StatusLists) list(id issuer.StatusListID) *servedList {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.lists[id]
	if !ok {
		l = &servedList{}
		s.lists[id] = l
	}
	return l
}

// encode reads list id's entries, as of now, and encodes them.
func (l *servedList) encode(ctx context.Context, st StatusStore, id issuer.StatusListID, now time.Time) error {
	state, err := st.StatusListState(ctx, id)
	if err != nil {
		return err
	}
	list, err := statuslist.New(state.Bits, state.Capacity)
	if err != nil {
		return fmt.Errorf("service: status list %s: %w", id, err)
	}
	for _, e := range state.Set {
		if err := list.Set(e.Idx, e.Status.Value()); err != nil {
			return fmt.Errorf("service: status list %s: %w", id, err)
		}
	}
	lst, err := list.Encode()
	if err != nil {
		return fmt.Errorf("service: status list %s: %w", id, err)
	}
	l.version, l.encoded, l.lst = state.Version, now, statuslist.Encoded{Bits: state.Bits, Lst: lst}
	return nil
}

// sign signs the encoded list as the token of uri, with the active key
// and a time inside its window (SPEC.md §19.3).
func (l *servedList) sign(ctx context.Context, keys ActiveKey, uri string) error {
	signer, _, at, err := keys.SigningNow(ctx)
	if err != nil {
		return err
	}
	payload, err := statuslist.MarshalPayload(statuslist.Payload{
		Exp: at.Add(StatusListLifetime).Unix(), Iat: at.Unix(), Iss: keys.Issuer(),
		StatusList: l.lst, Sub: uri, TTL: int64(StatusListTTL / time.Second),
	})
	if err != nil {
		return fmt.Errorf("service: status list token: %w", err)
	}
	jws, err := signer.SignCompact(payload, statuslist.Typ)
	if err != nil {
		return fmt.Errorf("service: status list token: %w", err)
	}
	sum := sha256.Sum256([]byte(jws))
	l.token, l.etag, l.iat = []byte(jws), `"`+hex.EncodeToString(sum[:])+`"`, at
	return nil
}
