package demoworld

import (
	"context"
	"fmt"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// Service is what a build needs of the issuer's use cases: the same calls
// the HTTP API and the MCP server make.
type Service interface {
	Authenticate(ctx context.Context, key issuer.APIKey) (issuer.Principal, error)
	Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error)
	Retrieve(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (issuer.Memory, error)
	SubmitFeedback(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, f issuer.Feedback, via issuer.Transport) (issuer.FeedbackResult, bool, error)
	ReportOutcome(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, o issuer.OutcomeReport, via issuer.Transport) (issuer.OutcomeResult, bool, error)
	DeclareCapabilities(ctx context.Context, p issuer.Principal, caps []string) (issuer.Capabilities, error)
	PublicProfile(ctx context.Context, id issuer.AgentID) (issuer.PublicProfile, error)
}

var _ Service = (*service.Service)(nil)

// contextBody is the wire form of a task context: only the stated labels.
func contextBody(c evidence.Context) map[string]string {
	out := map[string]string{}
	for i, v := range c.Values() {
		if v != "" {
			out[evidence.Dimensions[i]] = v
		}
	}
	return out
}

// apply runs one step through the request parser a transport would use and
// then the service.
func (b *builder) apply(ctx context.Context, s Step) error {
	p := b.principals[s.Agent]
	w := b.w
	switch s.Kind {
	case StepPublish:
		m := w.Memories[s.Memory]
		applies := contextBody(m.Context)
		applies["skill"] = m.Skill
		req := map[string]any{"category": m.Category, "title": m.Title, "content": m.Content, "appliesTo": applies}
		if m.Private {
			req["visibility"] = "private"
		}
		if m.Digest {
			req["kind"] = issuer.KindDigest
		}
		for _, l := range m.Links {
			k := string(l.Kind)
			ids, _ := req[k].([]issuer.MemoryID)
			req[k] = append(ids, w.MemoryID(l.Memory))
		}
		pub, err := issuer.ParsePublication(body(req))
		if err != nil {
			return err
		}
		disarm := b.env.IDs.arm(w.Seed, "memory", s.Memory)
		got, err := b.env.Service.Publish(ctx, p, pub)
		disarm()
		if err != nil {
			return err
		}
		if got.ID != w.MemoryID(s.Memory) {
			return fmt.Errorf("memory %q got %s, not its seeded identifier", m.Title, got.ID)
		}
		return nil
	case StepConsume:
		_, err := b.env.Service.Retrieve(ctx, p, w.MemoryID(s.Memory))
		return err
	case StepOutcome:
		o, err := issuer.ParseOutcome(body(map[string]any{"outcome": s.Outcome, "context": contextBody(s.Context)}))
		if err != nil {
			return err
		}
		_, _, err = b.env.Service.ReportOutcome(ctx, p, w.MemoryID(s.Memory), o, issuer.TransportHTTP)
		return err
	case StepCorroborate, StepContradict:
		t := "corroborate"
		if s.Kind == StepContradict {
			t = "contradict"
		}
		f := map[string]string{"type": t}
		if s.Reason != "" {
			f["reason"] = s.Reason
		}
		fb, err := issuer.ParseFeedback(body(f))
		if err != nil {
			return err
		}
		_, _, err = b.env.Service.SubmitFeedback(ctx, p, w.MemoryID(s.Memory), fb, issuer.TransportHTTP)
		return err
	case StepDeclare:
		caps, err := issuer.ParseCapabilities(body(map[string][]string{"capabilities": s.Capabilities}))
		if err != nil {
			return err
		}
		_, err = b.env.Service.DeclareCapabilities(ctx, p, caps)
		return err
	}
	return fmt.Errorf("unknown step kind %q", s.Kind)
}
