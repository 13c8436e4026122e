// Package statuslist implements the status list of the IETF Token Status
// List draft (draft-ietf-oauth-status-list, JWT form): a compact, signed
// record of whether each passport an issuer signed is still valid, revoked
// or suspended. It is a pure codec: it reads no files, no network and no
// clock, and it checks no signature. SPEC.md §19 specifies the format for
// other languages; this overview is enough to use it.
//
// # The list
//
// A [List] holds one status per entry, each of [List.Bits] bits (1, 2, 4
// or 8), packed into a byte array: entry i lives in byte i·bits/8, and
// entries fill each byte from its least significant bit up. [New] makes a
// list of zeros (every entry [Valid]); [List.Set] and [List.Get] write and
// read one entry; [List.Len] says how many entries the array holds.
//
//	l, err := statuslist.New(2, 1<<20)
//	err = l.Set(idx, statuslist.Invalid)
//	v, err := l.Get(idx) // statuslist.Invalid
//
// With two bits, the values are [Valid] (0), [Invalid] (1: revoked for
// good), [Suspended] (2: may become valid again) and [Reserved] (3, which
// no issuer writes).
//
// # The lst string
//
// [List.Encode] compresses the array with zlib (RFC 1950 around RFC 1951
// DEFLATE) at the best compression level and writes it as unpadded
// base64url: the draft's lst. [Decode] reverses it, strictly and with a
// bound: it refuses base64url that is padded, strays outside the alphabet,
// holds a line break or has non-zero trailing bits; a zlib stream that is
// broken, fails its checksum or is followed by anything; an empty array;
// and an array larger than the caller's maxBytes, which it stops
// decompressing as soon as the bound is passed. A verifier passes
// [MaxBytes]. Another compressor may write other bytes for the same array;
// only the decompressed array has meaning.
//
//	lst, err := l.Encode()
//	l2, err := statuslist.Decode(2, lst, statuslist.MaxBytes)
//
// # The token
//
// An issuer publishes a list as a JWS of type [Typ] (served as
// [MediaType]) whose payload is a [Payload]: the JWT claims exp, iat, iss,
// sub (the list's URI, which passports name in their status reference)
// and ttl, and the status_list claim ([Encoded]: bits and lst).
// [MarshalPayload] writes it as canonical JSON (RFC 8785); [ParsePayload]
// reads it back and refuses anything but canonical JSON with exactly
// those members and types, with a [*PayloadError] naming the member at
// fault. Signing and verifying the JWS is the caller's: the payload is
// only meaningful once its signature has been checked.
package statuslist
