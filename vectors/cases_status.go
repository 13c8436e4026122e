package vectors

import (
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
)

// statusIssuedAt is when the vectors' status lists were issued: two
// minutes before the verification time.
var statusIssuedAt = verifyAt.Add(-2 * time.Minute)

// listDraft is a status list token under construction, valid by default:
// two bits, 64 entries, signed by the EdDSA key, issued at statusIssuedAt
// for a day with a ttl of five minutes, naming the list the version 0.2
// passports point at. A case changes what it breaks.
type listDraft struct {
	key     *passport.PrivateKey
	typ     string
	list    *statuslist.List
	payload statuslist.Payload
	// raw, when set, rewrites the payload's canonical bytes before they
	// are signed.
	raw func([]byte) []byte
}

// newList returns the default list draft, of the given bits, with the
// passport's entry (statusIdx) set to value.
func (f *fixture) newList(bits int, value uint8) *listDraft {
	l, err := statuslist.New(bits, 64)
	if err != nil {
		panic(err)
	}
	// Neighbours of the passport's entry and a few others are not valid,
	// so that reading the wrong entry shows.
	for _, i := range []int{0, 5, statusIdx - 1, statusIdx + 1, 63} {
		if err := l.Set(i, 1); err != nil {
			panic(err)
		}
	}
	if err := l.Set(statusIdx, value); err != nil {
		panic(err)
	}
	return &listDraft{key: f.ed, typ: statuslist.Typ, list: l, payload: statuslist.Payload{
		Exp: statusIssuedAt.Add(24 * time.Hour).Unix(), Iat: statusIssuedAt.Unix(), Iss: Issuer, Sub: statusURI, TTL: 300,
	}}
}

// token returns the signed token.
func (ld *listDraft) token() []byte {
	p := ld.payload
	if ld.list != nil {
		lst, err := ld.list.Encode()
		if err != nil {
			panic(err)
		}
		p.StatusList = statuslist.Encoded{Bits: ld.list.Bits(), Lst: lst}
	}
	b, err := passport.Marshal(p)
	if err != nil {
		panic(err)
	}
	if ld.raw != nil {
		b = ld.raw(b)
	}
	jws, err := passport.NewSigner(ld.key).SignCompact(b, ld.typ)
	if err != nil {
		panic(err)
	}
	return []byte(jws)
}

// statusBundle is the version 0.2 passport with a status reference.
func (f *fixture) statusBundle() []byte {
	b, err := f.signed(f.ed, claimsPassport(false, true), baseRecords(), []int{1, 4, 6})
	if err != nil {
		panic(err)
	}
	return b
}

// with returns c checked with ld's token.
func (ld *listDraft) with(c Case, err error) (Case, error) {
	c.StatusList = ld.token()
	return c, err
}

// statusFails returns a negative case of the status check with ld's token.
func (f *fixture) statusFails(desc string, reason passport.Reason, ld *listDraft) (Case, error) {
	return ld.with(fails(desc, "status", reason, f.statusBundle()))
}

var statusGenerators = []generator{
	{"valid_status_list", func(f *fixture) (Case, error) {
		return f.newList(2, statuslist.Valid).with(passes("a status list with the passport's entry valid (two bits; its neighbours are revoked)", f.statusBundle(), nil))
	}},
	{"valid_status_list_one_bit", func(f *fixture) (Case, error) {
		return f.newList(1, statuslist.Valid).with(passes("a one-bit status list with the passport's entry valid", f.statusBundle(), nil))
	}},
	{"valid_status_list_ttl_at_skew", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.payload.Iat = verifyAt.Add(-300*time.Second - 5*time.Minute).Unix()
		return ld.with(passes("the list's iat + ttl + the skew is the verification time exactly", f.statusBundle(), nil))
	}},
	{"valid_status_list_not_required", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, claimsPassport(true, false), baseRecords(), nil)
		return f.newList(2, statuslist.Valid).with(passes("a list supplied for a passport that names none: the status check is not_required", b, err))
	}},
	{"status_revoked_fail", func(f *fixture) (Case, error) {
		return f.statusFails("the passport's entry is 1: revoked", passport.ReasonRevoked, f.newList(2, statuslist.Invalid))
	}},
	{"status_suspended_fail", func(f *fixture) (Case, error) {
		return f.statusFails("the passport's entry is 2: suspended", passport.ReasonSuspended, f.newList(2, statuslist.Suspended))
	}},
	{"status_value_3_fail", func(f *fixture) (Case, error) {
		return f.statusFails("the passport's entry is 3, which no issuer writes", passport.ReasonStatusUnknown, f.newList(2, statuslist.Reserved))
	}},
	{"status_value_8_bits_fail", func(f *fixture) (Case, error) {
		return f.statusFails("an eight-bit list whose entry is 12, an application-specific value", passport.ReasonStatusUnknown, f.newList(8, 12))
	}},
	{"status_ttl_stale_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.payload.Iat = verifyAt.Add(-300*time.Second - 5*time.Minute - time.Second).Unix()
		return f.statusFails("the list outlived its ttl by one second beyond the skew", passport.ReasonStatusStale, ld)
	}},
	{"status_list_expired_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.payload.Iat = verifyAt.Add(-48 * time.Hour).Unix()
		ld.payload.TTL = 7 * 24 * 3600
		ld.payload.Exp = verifyAt.Add(-5*time.Minute - time.Second).Unix()
		return f.statusFails("the list expired one second beyond the skew, within its ttl", passport.ReasonStatusStale, ld)
	}},
	{"status_list_from_future_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.payload.Iat = verifyAt.Add(5*time.Minute + time.Second).Unix()
		return f.statusFails("the list was issued after the verification time, beyond the skew", passport.ReasonStatusStale, ld)
	}},
	{"status_list_unknown_key_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.key = f.rogue
		return f.statusFails("the list is signed by a key the trust file does not hold", passport.ReasonStatusListInvalid, ld)
	}},
	{"status_list_key_window_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.key = f.edOld
		return f.statusFails("the list is signed in 2026 by the key valid only during 2025", passport.ReasonStatusListInvalid, ld)
	}},
	{"status_list_wrong_typ_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.typ = passport.JWSType
		return f.statusFails("the list token's typ is passport+jws", passport.ReasonStatusListInvalid, ld)
	}},
	{"status_list_other_issuer_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.payload.Iss = "https://other-issuer.example"
		return f.statusFails("the list names another issuer than the trust file", passport.ReasonStatusListInvalid, ld)
	}},
	{"status_list_not_canonical_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.raw = func(b []byte) []byte { return replaceOnce(b, `{"exp":`, `{ "exp":`) }
		return f.statusFails("the list's payload is not canonical JSON", passport.ReasonStatusListInvalid, ld)
	}},
	{"status_list_bad_lst_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		ld.list = nil
		ld.payload.StatusList = statuslist.Encoded{Bits: 2, Lst: b64([]byte("not a zlib stream"))}
		return f.statusFails("the list's lst is not a zlib stream", passport.ReasonStatusListInvalid, ld)
	}},
	{"status_list_sub_mismatch_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Invalid)
		ld.payload.Sub = Issuer + "/status/0b2c"
		return f.statusFails("the list is another list than the one the passport names (and would say revoked)", passport.ReasonStatusListMismatch, ld)
	}},
	{"status_index_out_of_range_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Valid)
		short, err := statuslist.New(2, 36)
		if err != nil {
			return Case{}, err
		}
		ld.list = short
		return f.statusFails("the passport's index 37 is beyond the list's 36 entries", passport.ReasonStatusListInvalid, ld)
	}},
	{"precedence_status_stale_revoked_fail", func(f *fixture) (Case, error) {
		ld := f.newList(2, statuslist.Invalid)
		ld.payload.Iat = verifyAt.Add(-time.Hour).Unix()
		return f.statusFails("a stale list that says revoked: staleness is checked before the value", passport.ReasonStatusStale, ld)
	}},
}
