// Package clitest holds test helpers for the commands: reading the
// sections and code blocks of the documentation, checks that the
// documentation and a command's --help state the same figures, and raw
// HTTP exchanges with a running server.
package clitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Section returns the text of the Markdown document at path under heading
// (a whole line such as "### Limits"), up to the next heading of the same
// or a higher level.
func Section(t testing.TB, path, heading string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		if l == heading {
			in = true
			continue
		}
		if in && strings.HasPrefix(l, "#") {
			if n := len(l) - len(strings.TrimLeft(l, "#")); n <= level {
				break
			}
		}
		if in {
			out = append(out, l)
		}
	}
	if !in {
		t.Fatalf("%s has no heading %q", path, heading)
	}
	return strings.Join(out, "\n")
}

// CodeBlock is a fenced code block of a Markdown document.
type CodeBlock struct {
	// Lang is the fence's info string, such as sh, console or text; empty
	// when the fence names none.
	Lang string
	// Line is the line number, from 1, of the block's first line of code.
	Line int
	// Lines are the block's lines, without the fences.
	Lines []string
}

// CodeBlocks returns the fenced code blocks of the Markdown document doc in
// order, and the line numbers of the indented code blocks it holds (lines
// indented by four spaces or a tab after a blank line, outside a fence).
func CodeBlocks(doc string) (blocks []CodeBlock, indented []int) {
	lines := strings.Split(doc, "\n")
	var open *CodeBlock
	for i, l := range lines {
		if fence, ok := strings.CutPrefix(l, "```"); ok {
			if open == nil {
				open = &CodeBlock{Lang: strings.TrimSpace(fence), Line: i + 2}
			} else {
				blocks = append(blocks, *open)
				open = nil
			}
			continue
		}
		switch {
		case open != nil:
			open.Lines = append(open.Lines, l)
		case (strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) && strings.TrimSpace(l) != "" && i > 0 && strings.TrimSpace(lines[i-1]) == "":
			indented = append(indented, i+1)
		}
	}
	return blocks, indented
}

var (
	flagDefault = regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z-]+)=("[^"]*"|\S+)`)
	figure      = regexp.MustCompile(`\b(\d{3,}|\d+(?:\.\d+)?(?:s|m|h))\b`)
)

// CheckHelpMatchesDoc checks that each flag in flags has a table row in
// section, a part of the documentation, ("| `--flag` | … | default | …") stating the default that
// help, kong's --help output, prints; and that every figure of the long help
// (numbers of three or more digits, and durations) appears in section.
func CheckHelpMatchesDoc(t testing.TB, help, section string, flags []string) {
	t.Helper()
	defaults := map[string]string{}
	for _, m := range flagDefault.FindAllStringSubmatch(help, -1) {
		defaults[m[1]] = strings.Trim(m[2], `"`)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(section, "\n") {
		if name, ok := strings.CutPrefix(l, "| `"); ok {
			name, _, _ = strings.Cut(name, "`")
			rows[name] = l
		}
	}
	for _, name := range flags {
		def, ok := defaults[name]
		if !ok {
			t.Errorf("--help does not show %s with a default", name)
			continue
		}
		row, ok := rows[name]
		if !ok {
			t.Errorf("the documentation has no row for %s", name)
			continue
		}
		if !strings.Contains(row, "| "+def+" |") {
			t.Errorf("the documentation's row %q does not state the default %s that --help shows", row, def)
		}
	}
	long, _, _ := strings.Cut(help, "Flags:")
	for _, f := range figure.FindAllString(long, -1) {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(f) + `\b`).MatchString(section) {
			t.Errorf("--help states %s; the documentation's section does not", f)
		}
	}
}

// Exchange writes raw, a request as bytes, to a new connection to addr and
// reads one response. A raw request whose body is shorter than its
// Content-Length stalls like a slow client.
func Exchange(t testing.TB, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to %.60q: %v", raw, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// Head returns a request head of exactly n bytes: requestLine, a Host
// header and a padding header, with CRLF line endings and the empty line.
func Head(requestLine string, n int) string {
	start := requestLine + "\r\nHost: x\r\nX-Pad: "
	return start + strings.Repeat("p", n-len(start)-4) + "\r\n\r\n"
}

// WantProblem checks that res is application/problem+json with status and
// the reason code, and that its type is derived from the code.
func WantProblem(t testing.TB, res *http.Response, body []byte, status int, code string) {
	t.Helper()
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Code   string `json:"code"`
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("status %d, Content-Type %q, body %.200q; want problem details", res.StatusCode, ct, body)
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body %q: %v", body, err)
	}
	if res.StatusCode != status || p.Status != status || p.Code != code || p.Type != "urn:passportkit:problem:"+code || p.Title == "" {
		t.Fatalf("status %d, problem %+v; want %d %s", res.StatusCode, p, status, code)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("problem without X-Content-Type-Options: nosniff")
	}
}

// Buffer is an output sink that a running server's goroutines and the test
// share: writes and reads hold one lock. The zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
