package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type failCmd struct {
	With string `arg:""`
}

func (c *failCmd) Run() error {
	switch c.With {
	case "usage":
		return Usage(errors.New("bad input"))
	case "silent":
		return Silent(3)
	case "plain":
		return errors.New("broke")
	case "prefixed":
		return Usage(errors.New("tool: bad key"))
	}
	return nil
}

type tree struct {
	Do failCmd `cmd:""`
}

func TestRun(t *testing.T) {
	p := Program{Name: "tool"}
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"do", "ok"}, ExitOK, ""},
		{[]string{"do", "usage"}, ExitUsage, "tool: bad input\n"},
		{[]string{"do", "silent"}, 3, ""},
		{[]string{"do", "plain"}, ExitFailed, "tool: broke\n"},
		{[]string{"do", "prefixed"}, ExitUsage, "tool: bad key\n"},
		{[]string{"nope"}, ExitUsage, "tool: unexpected argument nope"},
		{[]string{"--help"}, ExitOK, ""},
	} {
		var stdout, stderr bytes.Buffer
		if code := p.Run(&tree{}, tt.args, &stdout, &stderr); code != tt.code || !strings.HasPrefix(stderr.String(), tt.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tt.args, code, stderr.String(), tt.code, tt.stderr)
		}
	}
}
