//go:build unix

package docstest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecipes runs every recipe of the pages, session by session, with the
// commands built from this clone first on PATH, and fails on the first
// command that fails. A server a recipe starts (passport-issuer demo or
// serve, passport-serve) runs in the background on a free port, which the
// recipes after it reach in place of the one they name (the default --addr
// of passport-issuer serve and of passport-serve, read from their help),
// and answers /healthz before they
// run; a server on an address already served replaces the one before; the
// session's servers stop when it ends. `go run ./cmd/NAME` runs the built
// NAME.
func TestRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command and runs the recipes of every page; TestPages checks the pages under -short")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("PASSPORTKIT_CI") != "" {
				t.Fatalf("the recipes need %s: %v", tool, err)
			}
			t.Skipf("the recipes need %s, which is not installed", tool)
		}
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin, "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	named := [2]string{defaultAddr(t, bin, "passport-issuer", "serve"), defaultAddr(t, bin, "passport-serve")}
	for _, pages := range sessions {
		t.Run(strings.TrimSuffix(filepath.Base(pages[0]), ".md"), func(t *testing.T) {
			runSession(t, bin, named, pages)
		})
	}
}

// defaultAddr returns the default --addr of the built command name (with
// args, its subcommand), as its help states it: the address the pages
// name for it.
func defaultAddr(t *testing.T, bin, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(bin, name), append(args, "--help")...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", name, err, out)
	}
	m := regexp.MustCompile(`--addr="([^"]+)"`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("%s --help names no default --addr:\n%s", name, out)
	}
	return string(m[1])
}

// runSession runs the recipes of pages in one bash; named holds the
// addresses the pages name for the issuer and for passport-serve, which
// are served on free ports instead.
func runSession(t *testing.T, bin string, named [2]string, pages []string) {
	issuer, verifier := freeAddr(t), freeAddr(t)
	var pairs []string
	for i, to := range []string{issuer, verifier} {
		_, port, err := net.SplitHostPort(named[i])
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, named[i], to, "localhost:"+port, to)
	}
	addrs := strings.NewReplacer(pairs...)
	var script strings.Builder
	origin := []string{""} // origin[n] is the page line of script line n
	emit := func(from, s string) {
		for l := range strings.Lines(s) {
			script.WriteString(l)
			origin = append(origin, from)
		}
		if !strings.HasSuffix(s, "\n") {
			script.WriteByte('\n')
		}
	}
	emit("prelude", prelude)
	ran := 0
	for _, page := range pages {
		for _, r := range recipes(t, page) {
			from := fmt.Sprintf("%s:%d", r.page, r.line)
			if why := skipped(r, map[int]bool{}); why != "" {
				t.Logf("%s: not run: %s (%s)", from, r.text(), why)
				continue
			}
			ran++
			if addr, cmd, ok := server(r.text(), issuer, verifier); ok {
				emit(from, fmt.Sprintf("__serve %s %s", addr, addrs.Replace(cmd)))
				continue
			}
			emit(from, addrs.Replace(strings.Join(r.lines, "\n")))
		}
	}
	if ran == 0 {
		t.Logf("no recipe to run")
		return
	}

	dir, home, tmp, logs := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = environ(bin, home, tmp, logs)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On a timeout, the whole group: the servers too.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err == nil {
		t.Logf("%d recipes ran; they printed:\n%s", ran, out)
		checkIgnored(t, dir)
		return
	}
	where := "?"
	if m := regexp.MustCompile(`docstest: line (\d+)`).FindSubmatch(out); m != nil {
		if n, _ := strconv.Atoi(string(m[1])); n < len(origin) {
			where = origin[n]
		}
	}
	servers, _ := os.ReadFile(filepath.Join(logs, "servers.log"))
	t.Fatalf("the recipe at %s failed: %v\n%s\n--- the servers' logs, last lines:\n%s", where, err, tail(out, 60), tail(servers, 30))
}

// prelude starts every session: strict mode, a report naming the line that
// failed, `go run ./cmd/NAME` as the built NAME, and __serve, which starts a
// server in the background and waits for its /healthz.
const prelude = `set -euo pipefail
trap 'echo "docstest: line $LINENO exited $?: $BASH_COMMAND" >&2' ERR
go() {
	if [ "${1-}" = run ] && [[ "${2-}" == ./cmd/* ]]; then
		local c=${2#./cmd/}
		shift 2
		command "$c" "$@"
	else
		echo "docstest: go $* is not a recipe this test runs" >&2
		return 1
	fi
}
declare -A __pids
__stop() {
	local p
	for p in "${__pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	wait || true
}
trap __stop EXIT
__serve() {
	local addr=$1 old
	shift
	old=${__pids[$addr]-}
	if [ -n "$old" ]; then
		kill -TERM "$old" 2>/dev/null || true
		wait "$old" 2>/dev/null || true
	fi
	echo "--- $*" >>"$DOCSTEST_LOGS/servers.log"
	"$@" >>"$DOCSTEST_LOGS/servers.log" 2>&1 &
	__pids[$addr]=$!
	local i
	for i in $(seq 1 600); do
		if curl -fsS -o /dev/null "http://$addr/healthz" 2>/dev/null; then return 0; fi
		if ! kill -0 "${__pids[$addr]}" 2>/dev/null; then
			echo "docstest: the server stopped: $*" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "docstest: the server never answered /healthz: $*" >&2
	return 1
}
`

// server reports whether command starts a server, and if so returns the
// address it will serve on (the free issuer or verifier address) and the
// command that starts it there: with --addr, and for passport-issuer serve
// with --issuer naming that address, unless the command gives them.
func server(command, issuer, verifier string) (addr, cmd string, ok bool) {
	cmd = strings.TrimPrefix(command, "go run ./cmd/")
	f := strings.Fields(cmd)
	switch {
	case len(f) > 1 && f[0] == "passport-issuer" && (f[1] == "serve" || f[1] == "demo" && !slices.Contains(f, "--no-serve")):
		addr = issuer
		if !slices.Contains(f, "--addr") {
			cmd += " --addr " + addr
		}
		if f[1] == "serve" && !slices.Contains(f, "--issuer") {
			cmd += " --issuer http://" + addr
		}
	case len(f) > 0 && f[0] == "passport-serve":
		addr = verifier
		if !slices.Contains(f, "--addr") {
			cmd += " --addr " + addr
		}
	default:
		return "", "", false
	}
	return addr, cmd, true
}

// environ is the recipes' environment: the built commands first on PATH, a
// home and a temporary directory of their own, and none of the variables
// that would change what the commands do.
func environ(bin, home, tmp, logs string) []string {
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "TMPDIR=" + tmp, "DOCSTEST_LOGS=" + logs}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH" || name == "HOME" || name == "TMPDIR" || name == "CDPATH":
		case strings.HasPrefix(name, "PASSPORT"):
		default:
			env = append(env, kv)
		}
	}
	return env
}

// checkIgnored checks that git ignores every file the recipes made in dir,
// the session's stand-in for the clone: the recipes that run in the clone
// write only where .gitignore covers.
func checkIgnored(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Logf("git is not installed: what the recipes wrote is not checked against .gitignore")
		return
	}
	var made []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err == nil && !strings.HasPrefix(rel, "examples"+string(filepath.Separator)) {
			made = append(made, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(made) == 0 {
		return
	}
	cmd := exec.Command("git", "check-ignore", "--no-index", "--stdin")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(made, "\n") + "\n")
	out, err := cmd.Output()
	if e, ok := errors.AsType[*exec.ExitError](err); err != nil && !(ok && e.ExitCode() == 1) {
		t.Fatalf("git check-ignore: %v", err)
	}
	ignored := strings.Fields(string(out))
	for _, f := range made {
		if !slices.Contains(ignored, f) {
			t.Errorf("the recipes made %s in the clone, and .gitignore does not cover it", f)
		}
	}
	t.Logf("the recipes made %d files in the clone, all ignored by git", len(made))
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
