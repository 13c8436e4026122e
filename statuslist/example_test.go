package statuslist_test

import (
	"fmt"

	"github.com/remnant/passportkit/statuslist"
)

// An issuer revokes one entry and publishes the list; a verifier decodes
// it and reads the entry.
func Example() {
	l, err := statuslist.New(2, 1<<20)
	if err != nil {
		panic(err)
	}
	if err := l.Set(421337, statuslist.Invalid); err != nil {
		panic(err)
	}
	lst, err := l.Encode()
	if err != nil {
		panic(err)
	}
	payload, err := statuslist.MarshalPayload(statuslist.Payload{
		Exp: 1767312000, Iat: 1767225600, Iss: "https://issuer.example",
		StatusList: statuslist.Encoded{Bits: l.Bits(), Lst: lst},
		Sub:        "https://issuer.example/status/1", TTL: 300,
	})
	if err != nil {
		panic(err)
	}
	// The payload is signed as a JWS of type statuslist.Typ. A verifier
	// checks that signature, then:
	p, err := statuslist.ParsePayload(payload)
	if err != nil {
		panic(err)
	}
	got, err := statuslist.Decode(p.StatusList.Bits, p.StatusList.Lst, statuslist.MaxBytes)
	if err != nil {
		panic(err)
	}
	v, err := got.Get(421337)
	fmt.Println(got.Len(), v == statuslist.Invalid, err, len(lst) < 1000)
	// Output: 1048576 true <nil> true
}
