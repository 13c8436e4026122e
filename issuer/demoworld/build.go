package demoworld

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// Admin is what a build needs of the operator's use cases: creating
// operators and agents.
type Admin interface {
	CreateOperator(ctx context.Context, name string) (issuer.OperatorID, error)
	CreateAgent(ctx context.Context, in service.NewAgent) (service.CreatedAgent, error)
}

var _ Admin = (*service.Admin)(nil)

// Clock is the simulated clock of a build: the store and the use cases
// read it, and the build moves it to each step's time, so that the world's
// history spans years although it is written in seconds. Its zero value
// reads the zero time; a build sets it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t. A build moves it step by step; afterwards a
// caller may set it to the present to use the same store for issuing.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// IDs is the use cases' source of randomness during a build. The first
// read after the build names an entity (an operator, an agent, a memory) is
// derived from the world's seed, so that the identifiers of a world are the
// same in every database and a second run can find the first run's world;
// every other read (API keys, revision tokens) comes from crypto/rand.
type IDs struct {
	mu    sync.Mutex
	armed *mrand.ChaCha8
}

// Read fills p from the armed entity stream once, otherwise from
// crypto/rand.
func (s *IDs) Read(p []byte) (int, error) {
	s.mu.Lock()
	src := s.armed
	s.armed = nil
	s.mu.Unlock()
	if src == nil {
		return rand.Read(p)
	}
	return src.Read(p)
}

// arm derives the next read from the entity's stream and returns the
// function that disarms it, so that a call failing before its first read
// leaves nothing armed for a later one (an API key, say).
func (s *IDs) arm(seed uint64, kind string, index int) (disarm func()) {
	s.mu.Lock()
	s.armed = entityStream(seed, kind, index)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.armed = nil
		s.mu.Unlock()
	}
}

// entityStream is the deterministic stream an entity's identifier is read
// from.
func entityStream(seed uint64, kind string, index int) *mrand.ChaCha8 {
	h := sha256.New()
	fmt.Fprintf(h, "passportkit demo world\x00%d\x00%s\x00%d", seed, kind, index)
	var key [32]byte
	h.Sum(key[:0])
	return mrand.NewChaCha8(key)
}

// AgentID returns the identifier agent i of w has in every database.
func (w *World) AgentID(i int) issuer.AgentID {
	id, err := issuer.NewAgentID(entityStream(w.Seed, "agent", i))
	if err != nil {
		panic(err) // a ChaCha8 stream never fails
	}
	return id
}

// MemoryID returns the identifier memory i of w has in every database.
func (w *World) MemoryID(i int) issuer.MemoryID {
	id, err := issuer.NewMemoryID(entityStream(w.Seed, "memory", i))
	if err != nil {
		panic(err)
	}
	return id
}

// OperatorID returns the identifier operator i of w has in every database.
func (w *World) OperatorID(i int) issuer.OperatorID {
	id, err := issuer.NewOperatorID(entityStream(w.Seed, "operator", i))
	if err != nil {
		panic(err)
	}
	return id
}

// Refusal is a step the issuer refused, as the world expected.
type Refusal struct {
	Step    Step
	Code    issuer.Code
	Message string
}

// Result is a built (or found) world.
type Result struct {
	// Reused reports that the world was already in the database and nothing
	// was written.
	Reused bool
	// Anchor is the day the world's timeline ends on, for a built world.
	Anchor time.Time
	// Steps counts the steps applied.
	Steps int
	// Refusals are the steps refused at submission, each as the world
	// expected (the ring's praise of itself).
	Refusals []Refusal
}

// ErrIncomplete is returned when a database holds part of a world: an
// earlier build stopped before its end.
var ErrIncomplete = errors.New("demoworld: the database holds part of this world: an earlier build stopped before its end")

// Find reports whether the database already holds w: its main agent and
// its declarer (created last) exist.
func Find(ctx context.Context, w *World, svc Service) (bool, error) {
	exists := func(i int) (bool, error) {
		_, err := svc.PublicProfile(ctx, w.AgentID(i))
		if e, ok := errors.AsType[*issuer.Error](err); ok && e.Code == issuer.CodeNotFound {
			return false, nil
		}
		return err == nil, err
	}
	main, err := exists(w.Main())
	if err != nil || !main {
		return false, err
	}
	last, err := exists(w.first(RoleDeclarer))
	if err != nil {
		return false, err
	}
	if !last {
		return false, ErrIncomplete
	}
	return true, nil
}

// Env is what Build writes through. Admin and Service, and the store
// behind them, must read Clock for their time; Admin and Service must read
// IDs for their randomness.
type Env struct {
	Admin   Admin
	Service Service
	Clock   *Clock
	IDs     *IDs
	// Anchor is the last day of the world's timeline: a step DaysAgo days
	// ago happens that many days before it. It should be today.
	Anchor time.Time
}

// Store is what [NewEnv] builds the use cases over: issuer/store's DB.
type Store interface {
	service.Store
	service.AdminStore
}

// NewEnv returns the environment of a build over st, whose clock must be
// clock: the issuer's use cases over st, reading clock for their time and
// ids for their randomness, and anchor as the timeline's last day.
func NewEnv(st Store, clock *Clock, ids *IDs, anchor time.Time) Env {
	return Env{
		Admin:   service.NewAdmin(st, service.AdminOptions{Now: clock.Now, Rand: ids}),
		Service: service.New(st, service.Options{Now: clock.Now, Rand: ids}),
		Clock:   clock, IDs: ids, Anchor: anchor,
	}
}

// createdDaysAgo is when the world's operators and agents are created.
const createdDaysAgo = 1200

// Build writes w through the issuer's use cases, unless the database
// already holds it (see Find). Steps run in order, each in its own
// transaction, at its time on the simulated clock; a step that the world
// expects to be refused must be refused with that reason, and any other
// refusal stops the build.
func Build(ctx context.Context, w *World, env Env) (*Result, error) {
	found, err := Find(ctx, w, env.Service)
	if err != nil {
		return nil, err
	}
	if found {
		return &Result{Reused: true}, nil
	}
	anchor := env.Anchor.UTC().Truncate(24 * time.Hour)
	res := &Result{Anchor: anchor}
	b := &builder{w: w, env: env, keys: make([]issuer.APIKey, len(w.Agents)), principals: make([]issuer.Principal, len(w.Agents))}

	at := func(daysAgo, n int) time.Time {
		// Steps of one day are a minute apart, from 09:00 UTC.
		return anchor.AddDate(0, 0, -daysAgo).Add(9*time.Hour + time.Duration(n)*time.Minute)
	}
	env.Clock.Set(at(createdDaysAgo, 0))
	for i, op := range w.Operators {
		disarm := env.IDs.arm(w.Seed, "operator", i)
		id, err := env.Admin.CreateOperator(ctx, op.Name)
		disarm()
		if err != nil {
			return nil, fmt.Errorf("demoworld: operator %q: %w", op.Name, err)
		}
		if id != w.OperatorID(i) {
			return nil, fmt.Errorf("demoworld: operator %q got %s, not its seeded identifier", op.Name, id)
		}
	}
	declarer := w.first(RoleDeclarer)
	for i := range w.Agents {
		if i != declarer {
			if err := b.createAgent(ctx, i); err != nil {
				return nil, err
			}
		}
	}
	for n, s := range w.Steps {
		env.Clock.Set(at(s.DaysAgo, n))
		if s.Agent == declarer && b.keys[declarer] == "" {
			// The declarer is created just before its only act, the
			// world's last step, so that its existence marks a finished
			// world.
			if err := b.createAgent(ctx, declarer); err != nil {
				return nil, err
			}
		}
		err := b.apply(ctx, s)
		if s.Refused != "" {
			e, ok := errors.AsType[*issuer.Error](err)
			if !ok || string(e.Code) != s.Refused {
				return nil, fmt.Errorf("demoworld: step %d (%s by %s) should be refused with %s, got %v", n, s.Kind, w.Agents[s.Agent].Name, s.Refused, err)
			}
			res.Refusals = append(res.Refusals, Refusal{Step: s, Code: e.Code, Message: e.Message})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("demoworld: step %d (%s by %s): %w", n, s.Kind, w.Agents[s.Agent].Name, err)
		}
		res.Steps++
	}
	if b.keys[declarer] == "" {
		return nil, errors.New("demoworld: the world has no step by its declarer")
	}
	return res, nil
}

type builder struct {
	w          *World
	env        Env
	keys       []issuer.APIKey
	principals []issuer.Principal
}

func (b *builder) createAgent(ctx context.Context, i int) error {
	a := b.w.Agents[i]
	disarm := b.env.IDs.arm(b.w.Seed, "agent", i)
	created, err := b.env.Admin.CreateAgent(ctx, service.NewAgent{
		Name: a.Name, Description: a.Description, Operator: b.w.OperatorID(a.Operator),
	})
	disarm()
	if err != nil {
		return fmt.Errorf("demoworld: agent %q: %w", a.Name, err)
	}
	if created.ID != b.w.AgentID(i) {
		return fmt.Errorf("demoworld: agent %q got %s, not its seeded identifier", a.Name, created.ID)
	}
	p, err := b.env.Service.Authenticate(ctx, created.Key)
	if err != nil {
		return fmt.Errorf("demoworld: agent %q: %w", a.Name, err)
	}
	b.keys[i], b.principals[i] = created.Key, p
	return nil
}

// body is the JSON a client would send; every step goes through the same
// parser as the HTTP API, so every request rule applies.
func body(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain maps and strings always marshal
	}
	return b
}
