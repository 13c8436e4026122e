package httpserve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func limits() Limits {
	return Limits{ReadHeaderTimeout: time.Second, BodyTimeout: time.Second, WriteTimeout: 2 * time.Second,
		IdleTimeout: time.Second, MaxHeaderBytes: 4096}
}

func TestValidateRefusesDisabledLimits(t *testing.T) {
	if err := limits().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Limits){
		"zero read-header timeout": func(l *Limits) { l.ReadHeaderTimeout = 0 },
		"negative body timeout":    func(l *Limits) { l.BodyTimeout = -time.Second },
		"zero write timeout":       func(l *Limits) { l.WriteTimeout = 0 },
		"zero idle timeout":        func(l *Limits) { l.IdleTimeout = 0 },
		"tiny header bound":        func(l *Limits) { l.MaxHeaderBytes = MinHeaderBytes - 1 },
	} {
		l := limits()
		mutate(&l)
		if err := l.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestServeAnswersThenStopsCleanly serves on loopback, answers a request,
// and returns nil once its context ends; an oversized header is answered
// with problem details, not net/http's plain text.
func TestServeAnswersThenStopsCleanly(t *testing.T) {
	l := limits()
	ln, err := l.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := l.Server(ctx, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, ln, time.Second) }()

	url := "http://" + ln.Addr().String() + "/"
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("answer %q", body)
	}

	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Big", strings.Repeat("x", 4*l.MaxHeaderBytes)) // net/http adds 4 KiB of slack to the bound
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("oversized header: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v after a clean stop", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
