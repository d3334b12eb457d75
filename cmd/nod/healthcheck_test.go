package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runBinary runs the nod binary bin with args and env and returns its
// outputs and exit code.
func runBinary(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"HOME=" + t.TempDir()}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// The image's HEALTHCHECK is `nod healthcheck` and nothing else: it exits
// 0 while nod serves on NOD_HTTP_ADDR, and 1 with one line on stderr once
// the process is gone.
func TestHealthcheckCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	p := h.startProcess(t)
	m := regexp.MustCompile(`listening addr=(\S+)`).FindStringSubmatch(p.logs.String())
	if m == nil {
		t.Fatalf("nod logged no listening address:\n%s", p.logs)
	}
	env := []string{"NOD_HTTP_ADDR=" + m[1]}
	if out, errs, code := runBinary(t, binary(t), env, "healthcheck"); code != 0 || !strings.Contains(out, "200 OK") || errs != "" {
		t.Errorf("nod healthcheck while serving: exit %d, %q, %q", code, out, errs)
	}
	p.kill()
	out, errs, code := runBinary(t, binary(t), env, "healthcheck")
	if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "nod: unhealthy: ") || !strings.Contains(errs, m[1]) {
		t.Errorf("nod healthcheck after a kill: exit %d, %q, %q; want exit 1 and one line naming %s", code, out, errs, m[1])
	}
}

// buildInfo reads what `go version -m` says of bin: the main module's
// version and the commit, "+dirty" when vcs.modified.
func buildInfo(t *testing.T, bin string) (version, revision string) {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			version = f[2]
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			revision = strings.TrimPrefix(f[1], "vcs.revision=") + revision
		case len(f) == 2 && f[0] == "build" && f[1] == "vcs.modified=true":
			revision += "+dirty"
		}
	}
	if version == "(devel)" {
		version = "dev"
	}
	return version, revision
}

// nod version says what the go command recorded in the binary: the
// module's version and the commit, or that it recorded none (a build
// with -buildvcs=false, or in a git worktree, which the go command does
// not take for a checkout).
func TestVersionCommand(t *testing.T) {
	firstPassOnly(t, "no database involved")
	t.Parallel()
	plain := filepath.Join(t.TempDir(), "nod")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", plain, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=false: %v\n%s", err, out)
	}
	for _, bin := range []string{binary(t), plain} {
		version, revision := buildInfo(t, bin)
		want := "nod " + version + " (no revision recorded, "
		if revision != "" {
			want = "nod " + version + " (revision " + revision + ", "
		}
		out, errs, code := runBinary(t, bin, nil, "version")
		if code != 0 || !strings.HasPrefix(out, want) || !strings.HasSuffix(out, ")\n") || errs != "" {
			t.Errorf("%s version: exit %d, %q, %q; want %q…", bin, code, out, errs, want)
		}
		if bin == plain && (revision != "" || version != "dev") {
			t.Errorf("a build with -buildvcs=false recorded %s, %s", version, revision)
		}
	}
}
