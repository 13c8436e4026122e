package service

import (
	"context"
	"sync"
)

// flights runs at most one call per key at a time, and tells a caller
// whether it joined a call already running, which
// golang.org/x/sync/singleflight does not: a page shows the last passport
// while another request builds the next one, and waits for a build it
// started itself. The passports' builds and the feed's shared reads use it.
type flights[K comparable, T any] struct {
	mu      sync.Mutex
	running map[K]*flight[K, T]
}

// flight is one call; done is closed when v and err are set.
type flight[K comparable, T any] struct {
	done chan struct{}
	v    T
	err  error
}

// start returns the call running under key, or starts fn under it in a
// goroutine of its own; joined reports that the call was running already.
// fn outlives a caller that gives up: others may share it.
func (fs *flights[K, T]) start(key K, fn func() (T, error)) (f *flight[K, T], joined bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.running[key]; ok {
		return f, true
	}
	if fs.running == nil {
		fs.running = map[K]*flight[K, T]{}
	}
	f = &flight[K, T]{done: make(chan struct{})}
	fs.running[key] = f
	go func() {
		f.v, f.err = fn()
		fs.mu.Lock()
		delete(fs.running, key)
		fs.mu.Unlock()
		close(f.done)
	}()
	return f, false
}

// wait returns the call's result, or ctx's error if ctx ends first.
func (f *flight[K, T]) wait(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
