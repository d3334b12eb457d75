package app

import (
	"context"
	"errors"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// startServe runs nod serve with env until the test ends and returns the
// address its listener took.
func startServe(t *testing.T, tg *telegramtest.Server, env map[string]string) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	logs := &fixtures.LogBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, func(k string) string { return env[k] }, logs, logs) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, logs)
		}
	}
	t.Cleanup(stop)
	tg.Wait("nod to start", func() bool { return strings.Contains(logs.String(), "msg=running") })
	return regexp.MustCompile(`listening addr=(\S+)`).FindStringSubmatch(logs.String())[1], stop
}

// nod healthcheck asks a running nod's /healthz on NOD_HTTP_ADDR or
// -http-addr, a wildcard listener on 127.0.0.1, and says so; once nod
// has stopped it fails in one line that names the URL and the variable.
func TestHealthcheck(t *testing.T) {
	tg := telegramtest.New(t)
	env, _ := serveEnv(t, tg)
	env["NOD_HTTP_ADDR"] = ":0" // a wildcard, as in the image
	addr, stop := startServe(t, tg, env)
	_, port, _ := net.SplitHostPort(addr)
	want := "http://127.0.0.1:" + port + "/healthz"
	for _, given := range []string{":" + port, "0.0.0.0:" + port, "[::]:" + port, "127.0.0.1:" + port} {
		out, _, err := cli(t, map[string]string{"NOD_HTTP_ADDR": given}, "healthcheck")
		if err != nil || !strings.Contains(out, want) || !strings.Contains(out, "200") {
			t.Errorf("nod healthcheck on NOD_HTTP_ADDR=%s = %q, %v; want 200 from %s", given, out, err, want)
		}
	}
	if out, _, err := cli(t, map[string]string{"NOD_HTTP_ADDR": "127.0.0.1:1"}, "healthcheck", "-http-addr", ":"+port); err != nil {
		t.Errorf("nod healthcheck -http-addr :%s = %q, %v", port, out, err)
	}

	stop()
	out, _, err := cli(t, map[string]string{"NOD_HTTP_ADDR": ":" + port}, "healthcheck")
	if err == nil || out != "" {
		t.Fatalf("nod healthcheck after nod stopped = %q, %v; want an error", out, err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, want) || !strings.Contains(msg, "NOD_HTTP_ADDR") || !strings.Contains(msg, "refused") {
		t.Errorf("nod healthcheck after nod stopped: %q; want one line naming %s, the refusal and NOD_HTTP_ADDR", msg, want)
	}
}

// Nothing listening at the default address, an answer other than 200, a
// listener that never answers, and an address with no port to ask each
// fail with one line.
func TestHealthcheckFails(t *testing.T) {
	unhealthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	defer unhealthy.Close()
	hung := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hung.Close()
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"nothing at the default", nil, nil, "127.0.0.1:9090/healthz"},
		{"503", map[string]string{"NOD_HTTP_ADDR": unhealthy.Listener.Addr().String()}, nil, "answered 503 Service Unavailable"},
		{"hung", map[string]string{"NOD_HTTP_ADDR": hung.Listener.Addr().String()}, []string{"-timeout", "50ms"}, "no answer within 50ms"},
		{"free port", map[string]string{"NOD_HTTP_ADDR": "127.0.0.1:0"}, nil, "give it a fixed port"},
		{"no port", map[string]string{"NOD_HTTP_ADDR": "localhost"}, nil, "is not host:port"},
		{"extra argument", nil, []string{"now"}, "unexpected arguments"},
	} {
		if c.name == "nothing at the default" {
			if ln, err := net.Listen("tcp", "127.0.0.1:9090"); err != nil {
				t.Logf("127.0.0.1:9090 is in use here; skipping %q", c.name)
				continue
			} else {
				ln.Close()
			}
		}
		out, _, err := cli(t, c.env, append([]string{"healthcheck"}, c.args...)...)
		if err == nil || out != "" || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: nod healthcheck = %q, %v; want one line with %q", c.name, out, err, c.want)
		}
	}
	if out, _, err := cli(t, nil, "help", "healthcheck"); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out, "-http-addr") {
		t.Errorf("nod help healthcheck = %q, %v", out, err)
	}
}

// nod version names the version and the commit for each way nod is
// built, and says when a build recorded no commit.
func TestVersionLine(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-29T05:53:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "615b33c0a1b2c3d4e5f60718293a4b5c6d7e8f90"
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}, Settings: vcs(rev, "false")},
			"nod v0.4.0 (revision " + rev + ", go1.26.8)"},
		{"dirty checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.1-0.20261129055300-615b33c0a1b2+dirty"}, Settings: vcs(rev, "true")},
			"nod v0.4.1-0.20261129055300-615b33c0a1b2+dirty (revision " + rev + "+dirty, go1.26.8)"},
		{"go install", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0", Sum: "h1:x"}},
			"nod v0.4.0 (no revision recorded, go1.26.8)"},
		{"-buildvcs=false", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}},
			"nod dev (no revision recorded, go1.26.8)"},
		{"no build information", nil, "nod dev (no build information)"},
	} {
		if got := versionLine(c.info); got != c.want {
			t.Errorf("%s: versionLine = %q, want %q", c.name, got, c.want)
		}
	}
}
