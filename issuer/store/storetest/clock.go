package storetest

import (
	"sync"
	"time"
)

// Clock is a clock for tests, safe for concurrent use: each reading first
// moves it forward by its step (a second, say, so that every write of a
// scenario has its own moment; zero keeps it still), and a test sets or
// moves it by hand.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

// NewClock returns a Clock at t that moves by step at each reading.
func NewClock(t time.Time, step time.Duration) *Clock { return &Clock{t: t, step: step} }

// Now moves the clock by its step and returns its time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// Set moves the clock to t; it keeps its step.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Freeze moves the clock to t and keeps it there: readings no longer move
// it.
func (c *Clock) Freeze(t time.Time) {
	c.mu.Lock()
	c.t, c.step = t, 0
	c.mu.Unlock()
}
