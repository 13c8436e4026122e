package passport_test

import (
	"fmt"

	"github.com/remnant/passportkit/passport"
)

// Canonicalize writes RFC 8785 bytes and refuses what I-JSON forbids with
// a stable reason.
func ExampleCanonicalize() {
	out, err := passport.Canonicalize([]byte(`{"b": [1e2, "é"], "a": true}`))
	fmt.Println(string(out), err)

	_, err = passport.Canonicalize([]byte(`{"a": 1, "a": 2}`))
	fmt.Println(passport.ReasonOf(err))
	// Output:
	// {"a":true,"b":[100,"é"]} <nil>
	// json_duplicate_key
}
