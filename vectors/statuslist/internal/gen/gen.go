// Package gen writes the status list vectors: one small function per case.
package gen

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/base64"
	"strconv"
	"strings"

	vectors "github.com/remnant/passportkit/vectors/statuslist"
)

type m = map[string]any

// Cases returns every case, in no particular order.
func Cases() []vectors.Case {
	var out []vectors.Case
	for _, f := range []func() []vectors.Case{lstValid, lstRefused, payloads} {
		out = append(out, f()...)
	}
	return out
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// zlibAt compresses raw as one zlib stream at a level.
func zlibAt(raw []byte, level int) []byte {
	var buf bytes.Buffer
	w, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		panic(err)
	}
	w.Write(raw)
	w.Close()
	return buf.Bytes()
}

func lst(name, description string, bits int, s string, expect m) vectors.Case {
	return vectors.Case{Name: name, Kind: vectors.KindLst, Description: description, Bits: bits, Lst: s, Expect: expect}
}

func lstValid() []vectors.Case {
	sparse := make([]byte, 1<<12)
	sparse[0], sparse[1000], sparse[4095] = 0x01, 0x24, 0xc0
	sparseStatuses := m{"0": 1, "4001": 1, "4002": 2, "16383": 3}
	return []vectors.Case{
		lst("draft_bits1", "The draft's first example: 16 one-bit statuses, bytes b9 a3.", 1, "eNrbuRgAAhcBXQ",
			m{"size": 16, "bytes": "b9a3", "statuses": m{"0": 1, "3": 1, "4": 1, "5": 1, "7": 1, "8": 1, "9": 1, "13": 1, "15": 1}}),
		lst("draft_bits2", "The draft's two-bit example: 12 statuses, bytes c9 44 f9.", 2, "eNo76fITAAPfAgc",
			m{"size": 12, "bytes": "c944f9", "statuses": m{"0": 1, "1": 2, "3": 3, "5": 1, "7": 1, "8": 1, "9": 2, "10": 3, "11": 3}}),
		lst("go_bits2", "The same array as draft_bits2 compressed by Go's zlib at the best level: other bytes, the same list.", 2,
			b64(zlibAt([]byte{0xc9, 0x44, 0xf9}, zlib.BestCompression)),
			m{"size": 12, "bytes": "c944f9", "statuses": m{"0": 1, "1": 2, "3": 3, "5": 1, "7": 1, "8": 1, "9": 2, "10": 3, "11": 3}}),
		lst("stored_bits4", "Four-bit statuses in a zlib stream of stored (uncompressed) DEFLATE blocks.", 4,
			b64(zlibAt([]byte{0x21, 0x00, 0xf0}, zlib.NoCompression)),
			m{"size": 6, "bytes": "2100f0", "statuses": m{"0": 1, "1": 2, "5": 15}}),
		lst("bits8_every_value", "Eight-bit statuses 0 to 255, entry i holding i.", 8,
			b64(zlibAt(every(), zlib.BestCompression)), m{"size": 256, "statuses": everyStatuses()}),
		lst("sparse_bits2", "2^14 two-bit entries with four set, at the first byte, inside and at the last byte.", 2,
			b64(zlibAt(sparse, zlib.BestCompression)), m{"size": 1 << 14, "statuses": sparseStatuses}),
	}
}

func every() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func everyStatuses() m {
	s := m{}
	for i := 1; i < 256; i++ {
		s[strconv.Itoa(i)] = i
	}
	return s
}

func lstRefused() []vectors.Case {
	draft := "eNrbuRgAAhcBXQ"
	z, _ := base64.RawURLEncoding.DecodeString(draft)
	badSum := bytes.Clone(z)
	badSum[len(badSum)-1] ^= 1
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write([]byte{0xb9, 0xa3})
	fw.Close()
	var dict bytes.Buffer
	dw, _ := zlib.NewWriterLevelDict(&dict, zlib.BestCompression, []byte("passportkit"))
	dw.Write([]byte{0xb9, 0xa3})
	dw.Close()
	fail := func(name, description string, bits int, s, class string) vectors.Case {
		return lst(name, description, bits, s, m{"error": class})
	}
	malformed := "lst_malformed"
	return []vectors.Case{
		fail("bits3_fail", "bits must be 1, 2, 4 or 8.", 3, draft, "bits_invalid"),
		fail("padding_fail", "base64url with padding.", 1, draft+"==", malformed),
		fail("standard_alphabet_fail", "'+' and '/' for '-' and '_': the standard alphabet, not base64url.", 8, standard(), malformed),
		fail("line_break_fail", "A line break inside lst, which lenient decoders skip.", 1, draft[:7]+"\n"+draft[7:], malformed),
		fail("trailing_bits_fail", "The last character carries non-zero bits beyond the data.", 1, draft[:len(draft)-1]+"R", malformed),
		fail("truncated_fail", "The zlib stream lacks its last byte.", 1, b64(z[:len(z)-1]), malformed),
		fail("checksum_fail", "The Adler-32 checksum is wrong.", 1, b64(badSum), malformed),
		fail("trailing_byte_fail", "A zero byte after the zlib stream.", 1, b64(append(bytes.Clone(z), 0)), malformed),
		fail("two_streams_fail", "Two zlib streams, one after the other.", 1, b64(append(bytes.Clone(z), z...)), malformed),
		fail("raw_deflate_fail", "DEFLATE without the zlib wrapper.", 1, b64(raw.Bytes()), malformed),
		fail("preset_dictionary_fail", "A zlib stream that needs a preset dictionary.", 1, b64(dict.Bytes()), malformed),
		fail("empty_array_fail", "A valid zlib stream of no byte.", 1, b64(zlibAt(nil, 9)), malformed),
		fail("too_large_fail", "2^24 + 1 zero bytes: one byte over the bound.", 2, b64(zlibAt(make([]byte, 1<<24+1), 9)), "lst_too_large"),
	}
}

// standard returns the lst of bits8_every_value in the standard base64
// alphabet.
func standard() string {
	s := b64(zlibAt(every(), zlib.BestCompression))
	if !strings.ContainsAny(s, "-_") {
		panic("the lst has neither - nor _")
	}
	return strings.NewReplacer("-", "+", "_", "/").Replace(s)
}

func payload(name, description, p string, expect m) vectors.Case {
	return vectors.Case{Name: name, Kind: vectors.KindPayload, Description: description, Payload: p, Expect: expect}
}

func payloads() []vectors.Case {
	const sl = `"status_list":{"bits":2,"lst":"eNo76fITAAPfAgc"}`
	fail := func(name, description, p, class, member string) vectors.Case {
		e := m{"error": class}
		if member != "" {
			e["member"] = member
		}
		return payload(name, description, p, e)
	}
	return []vectors.Case{
		payload("payload_draft", "The draft's example token payload, with the iss passportkit requires.",
			`{"exp":2291720170,"iat":1686920170,"iss":"https://issuer.example","status_list":{"bits":1,"lst":"eNrbuRgAAhcBXQ"},"sub":"https://example.com/statuslists/1","ttl":43200}`,
			m{"exp": 2291720170, "iat": 1686920170, "iss": "https://issuer.example", "bits": 1, "lst": "eNrbuRgAAhcBXQ", "sub": "https://example.com/statuslists/1", "ttl": 43200}),
		payload("payload_escapes", "Strings with the escapes canonical JSON requires and literal non-ASCII text.",
			`{"exp":0,"iat":0,"iss":"\u001fé\"","status_list":{"bits":8,"lst":"x"},"sub":"s","ttl":9007199254740991}`,
			m{"exp": 0, "iat": 0, "iss": "\u001fé\"", "bits": 8, "lst": "x", "sub": "s", "ttl": 9007199254740991}),
		fail("payload_whitespace_fail", "A space after the opening brace.", `{ "exp":2,"iat":1,"iss":"i",`+sl+`,"sub":"s","ttl":1}`, "json_not_canonical", ""),
		fail("payload_order_fail", "iat before exp.", `{"iat":1,"exp":2,"iss":"i",`+sl+`,"sub":"s","ttl":1}`, "json_not_canonical", ""),
		fail("payload_duplicate_fail", "exp twice.", `{"exp":2,"exp":2,"iat":1,"iss":"i",`+sl+`,"sub":"s","ttl":1}`, "json_duplicate_key", ""),
		fail("payload_newline_fail", "A final newline.", `{"exp":2,"iat":1,"iss":"i",`+sl+`,"sub":"s","ttl":1}`+"\n", "json_trailing_data", ""),
		fail("payload_array_fail", "An array, not an object.", `[]`, "member_invalid", ""),
		fail("payload_nbf_fail", "nbf is not a member of the payload.", `{"exp":2,"iat":1,"iss":"i","nbf":1,`+sl+`,"sub":"s","ttl":1}`, "member_unknown", "nbf"),
		fail("payload_aggregation_uri_fail", "The draft's optional aggregation_uri is not taken.", `{"exp":2,"iat":1,"iss":"i","status_list":{"aggregation_uri":"https://a.example","bits":2,"lst":"eNo76fITAAPfAgc"},"sub":"s","ttl":1}`, "member_unknown", "status_list.aggregation_uri"),
		fail("payload_no_ttl_fail", "ttl is required.", `{"exp":2,"iat":1,"iss":"i",`+sl+`,"sub":"s"}`, "member_missing", "ttl"),
		fail("payload_no_exp_no_ttl_fail", "Two members missing: the first by name is reported.", `{"iat":1,"iss":"i",`+sl+`,"sub":"s"}`, "member_missing", "exp"),
		fail("payload_no_lst_fail", "status_list without lst.", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":2},"sub":"s","ttl":1}`, "member_missing", "status_list.lst"),
		fail("payload_exp_string_fail", "exp as a string.", `{"exp":"2","iat":1,"iss":"i",`+sl+`,"sub":"s","ttl":1}`, "member_invalid", "exp"),
		fail("payload_exp_fraction_fail", "exp with a fraction.", `{"exp":2.5,"iat":1,"iss":"i",`+sl+`,"sub":"s","ttl":1}`, "member_invalid", "exp"),
		fail("payload_iat_negative_fail", "A negative iat.", `{"exp":2,"iat":-1,"iss":"i",`+sl+`,"sub":"s","ttl":1}`, "member_invalid", "iat"),
		fail("payload_iss_empty_fail", "An empty iss.", `{"exp":2,"iat":1,"iss":"",`+sl+`,"sub":"s","ttl":1}`, "member_invalid", "iss"),
		fail("payload_bits3_fail", "bits 3.", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":3,"lst":"eNo76fITAAPfAgc"},"sub":"s","ttl":1}`, "member_invalid", "status_list.bits"),
		fail("payload_lst_empty_fail", "An empty lst.", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":2,"lst":""},"sub":"s","ttl":1}`, "member_invalid", "status_list.lst"),
		fail("payload_sub_number_fail", "sub as a number.", `{"exp":2,"iat":1,"iss":"i",`+sl+`,"sub":1,"ttl":1}`, "member_invalid", "sub"),
		fail("payload_ttl_zero_fail", "ttl 0.", `{"exp":2,"iat":1,"iss":"i",`+sl+`,"sub":"s","ttl":0}`, "member_invalid", "ttl"),
		fail("payload_precedence_fail", "exp negative and ttl 0: the first in document order is reported.", `{"exp":-1,"iat":1,"iss":"i",`+sl+`,"sub":"s","ttl":0}`, "member_invalid", "exp"),
		fail("payload_precedence_missing_fail", "ttl 0 and sub missing: a wrong member comes before a missing one.", `{"exp":2,"iat":1,"iss":"i",`+sl+`,"ttl":0}`, "member_invalid", "ttl"),
	}
}
