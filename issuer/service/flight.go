package service

import (
	"context"
	"sync"
)

// flights runs at most one build of a passport per key at a time, and tells
// a caller whether it joined a build already running, which
// golang.org/x/sync/singleflight does not: a page shows the last passport
// while another request builds the next one, and waits for a build it
// started itself.
type flights struct {
	mu      sync.Mutex
	running map[string]*flight
}

// flight is one build; done is closed when e and err are set.
type flight struct {
	done chan struct{}
	e    *issuedDraft
	err  error
}

// start returns the build running under key, or starts fn under it in a
// goroutine of its own; joined reports that the build was running already.
func (fs *flights) start(key string, fn func() (*issuedDraft, error)) (f *flight, joined bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.running[key]; ok {
		return f, true
	}
	if fs.running == nil {
		fs.running = map[string]*flight{}
	}
	f = &flight{done: make(chan struct{})}
	fs.running[key] = f
	go func() {
		f.e, f.err = fn()
		fs.mu.Lock()
		delete(fs.running, key)
		fs.mu.Unlock()
		close(f.done)
	}()
	return f, false
}

// wait returns the build's passport, or ctx's error if ctx ends first.
func (f *flight) wait(ctx context.Context) (*issuedDraft, error) {
	select {
	case <-f.done:
		return f.e, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
