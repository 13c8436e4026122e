package passport

import (
	"bytes"
	"crypto/ed25519"
	"testing"
)

// FuzzEd25519Verify holds the verifier's Ed25519 check to the standard
// library's: the same verdict for any key, message and signature. Each
// input is a key (a seed, or 32 raw bytes taken as the public key), a
// message and a signature: the seed's own signature of the message with
// some bits flipped, or raw bytes.
func FuzzEd25519Verify(f *testing.F) {
	seed := bytes.Repeat([]byte{7}, 32)
	f.Add(seed, false, []byte("a passport"), []byte{}, false)
	f.Add(seed, false, []byte("a passport"), []byte{0, 0, 0, 1}, false)
	f.Add(seed, false, []byte(""), make([]byte, 64), true)
	f.Add(bytes.Repeat([]byte{0xff}, 32), true, []byte("x"), make([]byte, 64), true)
	// A small-order point (the identity) as the key, with S = 0 and R the
	// identity: cofactorless verification accepts it, as the standard
	// library does.
	identity := append([]byte{1}, make([]byte, 31)...)
	f.Add(identity, true, []byte("any"), append(bytes.Clone(identity), make([]byte, 32)...), true)
	f.Fuzz(func(t *testing.T, key []byte, rawKey bool, msg, sig []byte, rawSig bool) {
		if len(key) != 32 {
			return
		}
		pub := ed25519.PublicKey(key)
		if !rawKey {
			priv := ed25519.NewKeyFromSeed(key)
			pub = priv.Public().(ed25519.PublicKey)
			if !rawSig {
				good := ed25519.Sign(priv, msg)
				for i, b := range sig {
					good[i%len(good)] ^= b
				}
				sig = good
			}
		}
		k := newEdKey(pub)
		if got, want := k.verify(msg, sig), ed25519.Verify(pub, msg, sig); got != want {
			t.Fatalf("key %x msg %x sig %x: verified %v, the standard library %v", pub, msg, sig, got, want)
		}
	})
}
