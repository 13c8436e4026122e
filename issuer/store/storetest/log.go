package storetest

import (
	"context"
	"log/slog"
	"math"
	"testing"
)

// Logger returns a logger that writes to t.Log.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(&testHandler{t: t, min: math.MinInt})
}

// QuietLogger is Logger without the records below warnings, such as the
// HTTP API's line per request, for a test that makes hundreds of requests.
func QuietLogger(t testing.TB) *slog.Logger {
	return slog.New(&testHandler{t: t, min: slog.LevelWarn})
}

type testHandler struct {
	t     testing.TB
	min   slog.Level
	attrs []slog.Attr
}

func (h *testHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

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
	return &testHandler{t: h.t, min: h.min, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *testHandler) WithGroup(string) slog.Handler { return h }
