package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/telegramtest"
)

func TestConfig(t *testing.T) {
	env := map[string]string{"NOD_MODEL": "env-model", "NOD_ALLOWED_USERS": "1, 2", "TELEGRAM_BOT_TOKEN": "secret-token"}
	var help bytes.Buffer
	c, _, err := loadConfig("nod", []string{"-model", "flag-model"}, func(k string) string { return env[k] }, &help)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "flag-model" || c.ClassifierModel != "flag-model" || len(c.AllowedUsers) != 2 || c.Token != "secret-token" ||
		c.StepTimeout != 60*time.Second || c.MaxSteps != 8 || c.HTTPAddr != "127.0.0.1:9090" || c.DB != "nod.db" {
		t.Errorf("config = %+v", c)
	}
	env["NOD_STEP_TIMEOUT"] = "soon"
	if _, _, err := loadConfig("nod", nil, func(k string) string { return env[k] }, &help); err == nil || !strings.Contains(err.Error(), "NOD_STEP_TIMEOUT") {
		t.Errorf("bad duration: %v", err)
	}
}

// cli runs nod with args and env, as main does.
func cli(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = Run(t.Context(), args, func(k string) string { return env[k] }, &out, &errb)
	return out.String(), errb.String(), err
}

// Help lists the commands and every flag with the kind of value it takes,
// its variable and default, and never a secret; main exits 0 on it.
func TestHelp(t *testing.T) {
	env := map[string]string{"TELEGRAM_BOT_TOKEN": "secret-token", "OPENAI_API_KEY": "sk-secret"}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"serve", "-h"}, {"help"}} {
		out, _, err := cli(t, env, args...)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("nod %v: %v", args, err)
		}
		for _, want := range []string{"nod migrate", "nod audit verify", "nod version", "nod help",
			"-step-timeout duration", "-db path|url", "-allowed-users ids", "(NOD_DB, default nod.db)", "-max-steps n", "(TELEGRAM_BOT_TOKEN)"} {
			if !strings.Contains(out, want) {
				t.Errorf("nod %v lacks %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, " string\n") || strings.Contains(out, "secret-token") || strings.Contains(out, "sk-secret") {
			t.Errorf("nod %v shows a bare string kind or a secret:\n%s", args, out)
		}
	}
	if out, _, err := cli(t, nil, "help", "audit", "verify"); err != nil && !errors.Is(err, flag.ErrHelp) || !strings.Contains(out, "-head") {
		t.Errorf("nod help audit verify = %q, %v", out, err)
	}
	if _, _, err := cli(t, nil, "frobnicate"); err == nil || !strings.Contains(err.Error(), "nod help") {
		t.Errorf("an unknown command: %v", err)
	}
	if _, _, err := cli(t, nil, "help", "frobnicate"); err == nil {
		t.Errorf("help for an unknown command: no error")
	}
}

func TestVersion(t *testing.T) {
	out, _, err := cli(t, nil, "version")
	info, _ := debug.ReadBuildInfo()
	if err != nil || out != versionLine(info)+"\n" || !strings.HasPrefix(out, "nod "+Version()+" (") || Version() == "" {
		t.Errorf("nod version = %q, %v", out, err)
	}
}

// serveEnv is what nod serve needs against the fake Bot API, with a
// database in a directory of its own.
func serveEnv(t *testing.T, tg *telegramtest.Server) (map[string]string, string) {
	dir := t.TempDir()
	return map[string]string{
		"TELEGRAM_BOT_TOKEN": telegramtest.Token, "TELEGRAM_API_URL": tg.URL, "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
		"NOD_DB": filepath.Join(dir, "nod.db"), "NOD_HTTP_ADDR": "127.0.0.1:0", "NOD_ALLOWED_USERS": "42",
	}, dir
}

// A refused token fails the start in one line that names the variable to
// fix, before any database file exists.
func TestWrongToken(t *testing.T) {
	tg := telegramtest.New(t)
	tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		return &telegramtest.Error{Code: 401, Description: "Unauthorized"}
	})
	env, dir := serveEnv(t, tg)
	_, logs, err := cli(t, env)
	if err == nil || !strings.Contains(err.Error(), "check TELEGRAM_BOT_TOKEN") || strings.Contains(err.Error(), telegramtest.Token) {
		t.Fatalf("serve with a refused token: %v", err)
	}
	if strings.Contains(strings.ToLower(logs), "unauthorized") || strings.Contains(logs, "level=ERROR") {
		t.Errorf("the failure is logged besides being returned:\n%s", logs)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("a failed start left %v behind", files)
	}
}

// A health port in use is said as such, with what to set, and leaves no
// database behind.
func TestHTTPAddrInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	env, dir := serveEnv(t, telegramtest.New(t))
	env["NOD_HTTP_ADDR"] = ln.Addr().String()
	_, _, err = cli(t, env)
	if err == nil || !strings.Contains(err.Error(), "is in use") || !strings.Contains(err.Error(), "set NOD_HTTP_ADDR") {
		t.Fatalf("serve on a port in use: %v", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("a failed start left %v behind", files)
	}
}

// With nobody allowed, nod still starts (the owner learns their id from
// its refusal) but warns that it will refuse everyone.
func TestEmptyAllowedUsersWarns(t *testing.T) {
	tg := telegramtest.New(t)
	env, _ := serveEnv(t, tg)
	delete(env, "NOD_ALLOWED_USERS")
	ctx, cancel := context.WithCancel(t.Context())
	logs := &fixtures.LogBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, func(k string) string { return env[k] }, logs, logs) }()
	tg.Wait("nod to poll", func() bool { return len(tg.Calls("getUpdates")) > 0 })
	tg.SendText(777, 777, "hello")
	if m := tg.WaitBotMessages(777, 1)[0]; !strings.Contains(m.Text, "777") {
		t.Errorf("the refusal does not name the id: %q", m.Text)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, logs)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "NOD_ALLOWED_USERS is empty") {
		t.Errorf("no warning about the empty allowlist:\n%s", logs)
	}
}

// A stop asked for while nod starts (Ctrl-C as it connects) is a clean
// stop: no error, and what had started is stopped, the database's lock
// released.
func TestStopDuringStart(t *testing.T) {
	tg := telegramtest.New(t)
	env, _ := serveEnv(t, tg)
	ctx, cancel := context.WithCancel(t.Context())
	// The command menu is set by the start's last hook.
	tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		if method == "setMyCommands" {
			cancel()
		}
		return nil
	})
	logs := &fixtures.LogBuffer{}
	if err := Run(ctx, nil, func(k string) string { return env[k] }, logs, logs); err != nil {
		t.Fatalf("serve stopped while starting: %v\n%s", err, logs)
	}
	if strings.Contains(logs.String(), "msg=running") || !strings.Contains(logs.String(), "msg=stopping") {
		t.Errorf("the log does not say it stopped without running:\n%s", logs)
	}
	f, err := lockDB(env["NOD_DB"], true)
	if err != nil {
		t.Fatalf("the database's lock is still held after the stop: %v", err)
	}
	f.Close()
}

// A webhook secret Telegram would refuse, or one short enough to guess,
// fails the start in one line that names NOD_WEBHOOK_SECRET and says
// what it takes, never the secret itself, before any database file
// exists.
func TestWebhookSecretRefused(t *testing.T) {
	for name, secret := range map[string]string{
		"short":      "short-hook-key1",
		"too long":   strings.Repeat("a", 257),
		"a space":    "a secret with spaces in it",
		"punctuated": "secret.with.dots-and-more",
		"non-ASCII":  "sécret-hook-token-long-enough",
	} {
		t.Run(name, func(t *testing.T) {
			tg := telegramtest.New(t)
			env, dir := serveEnv(t, tg)
			env["NOD_WEBHOOK_URL"], env["NOD_WEBHOOK_SECRET"] = "https://bot.example.org/hook", secret
			logs, err := serveOnce(t, tg, env)
			if err == nil || !strings.Contains(err.Error(), "NOD_WEBHOOK_SECRET") || !strings.Contains(err.Error(), "16 to 256") ||
				strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), secret) {
				t.Fatalf("serve with a webhook secret %q: %v", secret, err)
			}
			if strings.Contains(logs, secret) {
				t.Errorf("the secret is in the logs:\n%s", logs)
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("a failed start left %v behind", files)
			}
		})
	}
	for _, secret := range []string{"abcdefghij_-1234", strings.Repeat("Z", 256)} {
		tg := telegramtest.New(t)
		env, _ := serveEnv(t, tg)
		env["NOD_WEBHOOK_URL"], env["NOD_WEBHOOK_SECRET"] = "https://bot.example.org/hook", secret
		if _, err := serveOnce(t, tg, env); !errors.Is(err, errStarted) {
			t.Errorf("serve with a webhook secret of %d characters: %v", len(secret), err)
		}
	}
}

var errStarted = errors.New("nod started")

// serveOnce runs nod serve with env until it fails to start, or else
// until it has set its webhook or polled, and then stops it: a start that
// should fail but does not fails the test rather than hanging it.
func serveOnce(t *testing.T, tg *telegramtest.Server, env map[string]string) (logs string, err error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	buf := &fixtures.LogBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, func(k string) string { return env[k] }, buf, buf) }()
	failed := false
	tg.Wait("nod to start or fail", func() bool {
		select {
		case err = <-done:
			failed = true
			return true
		default:
			return len(tg.Calls("setWebhook"))+len(tg.Calls("getUpdates")) > 0
		}
	})
	if !failed {
		cancel()
		<-done
		return buf.String(), errStarted
	}
	return buf.String(), err
}

// A secret of 1 to 3 characters could not be masked in the logs without
// garbling every line holding those letters, so nod refuses it at start,
// naming the variable and never the value; an empty OpenAI key (a local
// server's) and audit key (none) stay allowed.
func TestShortSecretRefused(t *testing.T) {
	for _, c := range []struct{ env, value string }{
		{"TELEGRAM_BOT_TOKEN", "7:a"},
		{"OPENAI_API_KEY", "x"},
		{"OPENAI_API_KEY", "sk"},
		{"NOD_AUDIT_KEY", "éé"}, // four bytes, two characters
	} {
		tg := telegramtest.New(t)
		env, dir := serveEnv(t, tg)
		env[c.env] = c.value
		_, err := serveOnce(t, tg, env)
		if err == nil || !strings.Contains(err.Error(), c.env) || !strings.Contains(err.Error(), "4 characters") ||
			strings.Contains(err.Error(), `"`+c.value+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("serve with %s of %d characters: %v", c.env, len([]rune(c.value)), err)
		}
		if files, _ := os.ReadDir(dir); len(files) != 0 {
			t.Errorf("a failed start left %v behind", files)
		}
	}
	tg := telegramtest.New(t)
	env, _ := serveEnv(t, tg)
	env["OPENAI_API_KEY"], env["NOD_AUDIT_KEY"] = "", ""
	if _, err := serveOnce(t, tg, env); !errors.Is(err, errStarted) {
		t.Errorf("serve with no OpenAI key and no audit key: %v", err)
	}
}

// Every secret is masked wherever it appears in a log line, whatever its
// length: the shortest nod takes is four characters.
func TestLoggerMasksSecrets(t *testing.T) {
	cfg := config{Token: "123:tok", APIKey: "akey", WebhookSecret: "hook-secret-0123456", AuditKey: "audk"}
	var out bytes.Buffer
	log := newLogger(cfg, &out)
	log.Info("calling with akey and audk", "url", "https://api/bot123:tok/getMe", "err", errors.New("header hook-secret-0123456"))
	for _, s := range []string{cfg.Token, cfg.APIKey, cfg.WebhookSecret, cfg.AuditKey} {
		if strings.Contains(out.String(), s) {
			t.Errorf("%q is in the log: %s", s, out.String())
		}
	}
	if strings.Count(out.String(), "***") != 4 {
		t.Errorf("the log masks %d secrets, want 4: %s", strings.Count(out.String(), "***"), out.String())
	}
}

// nod's listener bounds what a client may take: an oversized header is
// refused with 431, and a slow or idle connection is closed in time.
func TestHTTPLimits(t *testing.T) {
	srv := newListener("127.0.0.1:0", nil)
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Errorf("the listener's limits: header %v, read %v, write %v, idle %v, %d header bytes",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
	tg := telegramtest.New(t)
	env, _ := serveEnv(t, tg)
	ctx, cancel := context.WithCancel(t.Context())
	logs := &fixtures.LogBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, func(k string) string { return env[k] }, logs, logs) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	// Stopped before its start is over, nod would report that as an error.
	tg.Wait("nod to start", func() bool { return strings.Contains(logs.String(), "msg=running") })
	addr := regexp.MustCompile(`listening addr=(\S+)`).FindStringSubmatch(logs.String())[1]
	get := func(header string) int {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+addr+"/healthz", nil)
		req.Header.Set("X-Padding", header)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := get("small"); st != http.StatusOK {
		t.Errorf("/healthz: %d", st)
	}
	if st := get(strings.Repeat("x", 64<<10)); st != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("/healthz with a 64 KiB header: %d, want 431", st)
	}
}
