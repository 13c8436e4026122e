package storetest

import (
	"context"
	"log/slog"
	"testing"
)

// Logger returns a logger that writes to t.Log.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(&testHandler{t: t})
}

type testHandler struct {
	t     testing.TB
	attrs []slog.Attr
}

func (h *testHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *testHandler) Handle(_ context.Context, r slog.Record) error {
	msg := r.Level.String() + " " + r.Message
	for _, a := range h.attrs {
		msg += " " + a.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		msg += " " + a.String()
		return true
	})
	h.t.Log(msg)
	return nil
}

func (h *testHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &testHandler{t: h.t, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *testHandler) WithGroup(string) slog.Handler { return h }
