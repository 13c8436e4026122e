package store_test

import (
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"io"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/issuing/issuingtest"
	"github.com/remnant/passportkit/passport"
)

// BenchmarkCompressEvidence compresses the evidence file of a passport at
// the collection limits with the standard library's gzip at BestSpeed (the
// baseline, measured in the same run) and with klauspost/compress's gzip at
// the level SaveIssuedPassport uses.
func BenchmarkCompressEvidence(b *testing.B) {
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	s := issuingtest.LimitSubject(at, evidence.MaxMemories, evidence.MaxReports)
	k, err := passport.GenerateKey(passport.EdDSA, bytes.NewReader(make([]byte, ed25519.SeedSize)))
	if err != nil {
		b.Fatal(err)
	}
	is, err := issuing.Issue(s, make([]byte, 32), passport.NewSigner(k), issuing.Options{Issuer: "https://issuer.test", IssuedAt: at}, issuing.DiscloseNone)
	if err != nil {
		b.Fatal(err)
	}
	file := is.EvidenceFile
	// What the faster writer writes, the standard reader reads back byte
	// for byte.
	var buf bytes.Buffer
	zw, _ := kgzip.NewWriterLevel(&buf, kgzip.BestSpeed)
	zw.Write(file)
	zw.Close()
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		b.Fatal(err)
	}
	if back, err := io.ReadAll(zr); err != nil || !bytes.Equal(back, file) {
		b.Fatalf("the evidence file does not read back: %v", err)
	}
	var base time.Duration
	var baseSize int
	b.Run("stdlib-bestspeed", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		t0 := time.Now()
		for b.Loop() {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
			zw.Write(file)
			zw.Close()
			baseSize = buf.Len()
		}
		base = time.Since(t0) / time.Duration(b.N)
		b.ReportMetric(float64(len(file))/float64(baseSize), "ratio")
	})
	b.Run("klauspost-bestspeed", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		var size int
		t0 := time.Now()
		for b.Loop() {
			var buf bytes.Buffer
			zw, _ := kgzip.NewWriterLevel(&buf, kgzip.BestSpeed)
			zw.Write(file)
			zw.Close()
			size = buf.Len()
		}
		per := time.Since(t0) / time.Duration(b.N)
		b.ReportMetric(float64(len(file))/float64(size), "ratio")
		if base > 0 {
			b.ReportMetric(float64(per)/float64(base), "x-stdlib")
		}
	})
}
