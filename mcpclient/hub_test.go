package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/mcptest"
	"github.com/nodbot/nod/mcpclient"
	"go.uber.org/goleak"
)

// TestMain lets this test binary be the stdio server of the tests that
// run one (mcptest.StdioCommand), and fails the suite if a goroutine of
// a closed hub outlives it.
func TestMain(m *testing.M) {
	mcptest.ServeStdioIfChild()
	goleak.VerifyTestMain(m)
}

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// start runs a hub on cfg with the clock's After; the test's cleanup
// closes it.
func start(t *testing.T, cfg mcpclient.Config, clock *fixtures.Clock) (*mcpclient.Hub, *fixtures.LogBuffer) {
	t.Helper()
	logs := &fixtures.LogBuffer{}
	h := mcpclient.New(cfg, mcpclient.Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), After: clock.After, Version: "test"})
	h.Start(t.Context())
	t.Cleanup(func() { _ = h.Close() })
	return h, logs
}

// eventually waits (in real time: the hub works in the background) until
// ok holds.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func names(tools []nod.ExternalTool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, string(t.Name))
	}
	return out
}

func httpConfig(name, url string) mcpclient.Config {
	return mcpclient.Config{Servers: map[string]mcpclient.Server{name: {URL: url}}}
}

// A server over streamable HTTP: its tools offered with their risks and
// cleaned schemas, and each kind of result read back.
func TestHTTPServer(t *testing.T) {
	nb := mcptest.NewNotebook()
	nb.AddTool(&mcp.Tool{Name: "dump", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		mcptest.Text(strings.Repeat("0123456789abcdef", 5<<10))) // 80 KB
	nb.AddTool(&mcp.Tool{Name: "snapshot", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the page"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 12<<10)}}}, nil
		})
	nb.AddTool(&mcp.Tool{Name: "bad.name"}, mcptest.Text("never offered"))
	srv := mcptest.ServeHTTP(t, nb)
	cfg := mcpclient.Config{Servers: map[string]mcpclient.Server{"notebook": {URL: srv.URL, TrustAnnotations: true,
		Tools: map[string]nod.Risk{"dump": nod.Mutating, "rename_note": nod.Mutating}}}}
	h, logs := start(t, cfg, fixtures.NewClock(t0))
	eventually(t, "the notebook's tools are offered", func() bool { return len(h.Tools()) > 0 })

	tools := h.Tools()
	want := []string{"mcp__notebook__add_note", "mcp__notebook__delete_note", "mcp__notebook__dump", "mcp__notebook__list_notes", "mcp__notebook__snapshot"}
	if got := names(tools); !slices.Equal(got, want) {
		t.Fatalf("Tools = %v, want %v", got, want)
	}
	risks := map[string]nod.Risk{}
	for _, tool := range tools {
		risks[tool.Tool] = tool.Risk
		if tool.Server != "notebook" || !strings.HasSuffix(string(tool.Name), "__"+tool.Tool) {
			t.Errorf("tool %+v", tool)
		}
	}
	wantRisks := map[string]nod.Risk{"add_note": nod.Mutating, "delete_note": nod.Destructive, "dump": nod.Mutating,
		"list_notes": nod.ReadOnly, "snapshot": nod.ReadOnly}
	for tool, r := range wantRisks {
		if risks[tool] != r {
			t.Errorf("%s: risk %v, want %v", tool, risks[tool], r)
		}
	}
	add := tools[0]
	if add.Description != "Add a note to the notebook." {
		t.Errorf("add_note's description %q", add.Description)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Schema     string                     `json:"$schema"`
	}
	if err := json.Unmarshal(add.Schema, &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil ||
		!slices.Equal(schema.Required, []string{"text"}) || schema.Schema != "" {
		t.Errorf("add_note's schema %s (%v)", add.Schema, err)
	}
	if h.Unavailable() != nil {
		t.Errorf("Unavailable = %v", h.Unavailable())
	}
	if !strings.Contains(logs.String(), `msg="mcp server connected" server=notebook tools=5`) {
		t.Errorf("no connection line in the log:\n%s", logs)
	}
	if !strings.Contains(logs.String(), `tool=bad.name`) || !strings.Contains(logs.String(), `tool=rename_note`) {
		t.Errorf("the skipped tool and the unknown entry are not logged:\n%s", logs)
	}

	ctx := t.Context()
	r, err := h.Call(ctx, "mcp__notebook__add_note", json.RawMessage(`{"text":"buy milk"}`))
	if err != nil || r.Text != "added note 1: buy milk" || r.IsError || r.Truncated {
		t.Errorf("add_note: %+v, %v", r, err)
	}
	if notes := nb.Notes(); len(notes) != 1 || notes[0].Text != "buy milk" {
		t.Errorf("notes after add_note: %v", notes)
	}
	r, err = h.Call(ctx, "mcp__notebook__list_notes", nil)
	if err != nil || string(r.Structured) != `{"notes":[{"id":1,"text":"buy milk"}]}` || r.IsError {
		t.Errorf("list_notes: %+v, %v", r, err)
	}
	r, err = h.Call(ctx, "mcp__notebook__delete_note", json.RawMessage(`{"id":7}`))
	if err != nil || !r.IsError || r.Text != "there is no note 7" {
		t.Errorf("delete_note of a missing note: %+v, %v", r, err)
	}
	r, err = h.Call(ctx, "mcp__notebook__dump", nil)
	if err != nil || !r.Truncated || len(r.Text) != mcpclient.MaxResult || !strings.HasPrefix(r.Text, "0123456789abcdef") {
		t.Errorf("dump: truncated %v, %d bytes, %v", r.Truncated, len(r.Text), err)
	}
	r, err = h.Call(ctx, "mcp__notebook__snapshot", nil)
	if err != nil || r.Text != "the page\n[image image/png, 12 KB]" {
		t.Errorf("snapshot: %+v, %v", r, err)
	}
	r, err = h.Call(ctx, "mcp__notebook__delete_note", json.RawMessage(`{"id":"seven"}`))
	if err != nil || !r.IsError || !strings.Contains(r.Text, "id") {
		t.Errorf("arguments the server refuses: %+v, %v", r, err)
	}
}

// A call of a tool no server offers is unavailable, never guessed.
func TestCallAbsentTool(t *testing.T) {
	srv := mcptest.ServeHTTP(t, mcptest.NewNotebook())
	h, _ := start(t, httpConfig("notebook", srv.URL), fixtures.NewClock(t0))
	eventually(t, "connected", func() bool { return len(h.Tools()) == 3 })
	for _, name := range []nod.Tool{"mcp__notebook__rename_note", "mcp__files__read_file"} {
		if _, err := h.Call(t.Context(), name, nil); !errors.Is(err, mcpclient.ErrUnavailable) || errors.Is(err, mcpclient.ErrInterrupted) {
			t.Errorf("Call(%s) = %v, want ErrUnavailable", name, err)
		}
	}
	var none *mcpclient.Hub
	if none.Tools() != nil || none.Unavailable() != nil || none.Close() != nil {
		t.Error("a nil hub has something")
	}
	if _, err := none.Call(t.Context(), "mcp__notebook__list_notes", nil); !errors.Is(err, mcpclient.ErrUnavailable) {
		t.Errorf("nil hub's Call = %v", err)
	}
}

// A server down at start is absent and named unavailable; it is tried
// again after 1 s, then 2 s, and offered once it answers.
func TestServerDownAtStart(t *testing.T) {
	srv := mcptest.ServeHTTP(t, mcptest.NewNotebook())
	srv.Stop()
	clock := fixtures.NewClock(t0)
	h, logs := start(t, httpConfig("notebook", srv.URL), clock)
	eventually(t, "the first retry waits", func() bool { return len(clock.Waits()) == 1 })
	if h.Tools() != nil || !slices.Equal(h.Unavailable(), []string{"notebook"}) {
		t.Errorf("down: Tools %v, Unavailable %v", names(h.Tools()), h.Unavailable())
	}
	if _, err := h.Call(t.Context(), "mcp__notebook__list_notes", nil); !errors.Is(err, mcpclient.ErrUnavailable) || errors.Is(err, mcpclient.ErrInterrupted) {
		t.Errorf("Call while down = %v, want ErrUnavailable (and nothing sent)", err)
	}
	clock.Advance(time.Second)
	eventually(t, "the second retry waits", func() bool { return len(clock.Waits()) == 2 })
	if n := strings.Count(logs.String(), "mcp server unavailable"); n != 1 {
		t.Errorf("the episode is logged %d times:\n%s", n, logs)
	}
	srv.Start()
	clock.Advance(2 * time.Second)
	eventually(t, "connected", func() bool { return len(h.Tools()) == 3 })
	if got := clock.Waits(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("waits %v", got)
	}
	if h.Unavailable() != nil {
		t.Errorf("Unavailable = %v", h.Unavailable())
	}
}

// A server that goes away is missed at once (its event stream breaks),
// a call of its tools meanwhile is an error wrapping ErrUnavailable, and
// it is reconnected after the backoff once it is back.
func TestHTTPServerRestarts(t *testing.T) {
	nb := mcptest.NewNotebook()
	srv := mcptest.ServeHTTP(t, nb)
	clock := fixtures.NewClock(t0)
	h, logs := start(t, httpConfig("notebook", srv.URL), clock)
	eventually(t, "connected", func() bool { return len(h.Tools()) == 3 })
	srv.Stop()
	eventually(t, "the server is missed", func() bool { return len(h.Unavailable()) == 1 })
	if _, err := h.Call(t.Context(), "mcp__notebook__list_notes", nil); !errors.Is(err, mcpclient.ErrUnavailable) {
		t.Errorf("Call on a stopped server: %v, want ErrUnavailable", err)
	}
	// The loss is logged after the server is marked missed (hub.go's
	// serve returns first): the line may come a moment later.
	eventually(t, "the loss is logged", func() bool {
		return strings.Contains(logs.String(), `msg="mcp server lost; reconnecting" server=notebook`)
	})
	if h.Tools() != nil {
		t.Errorf("Tools while down: %v", names(h.Tools()))
	}
	srv.Start()
	eventually(t, "the retry waits", func() bool { return len(clock.Waits()) > 0 })
	clock.Advance(time.Second)
	eventually(t, "reconnected", func() bool { return len(h.Tools()) == 3 })
	r, err := h.Call(t.Context(), "mcp__notebook__add_note", json.RawMessage(`{"text":"after"}`))
	if err != nil || r.Text != "added note 1: after" {
		t.Errorf("add_note after the restart: %+v, %v", r, err)
	}
}

// A tool added at run time is offered once the server says its list
// changed.
func TestToolListChanged(t *testing.T) {
	nb := mcptest.NewNotebook()
	srv := mcptest.ServeHTTP(t, nb)
	h, _ := start(t, httpConfig("notebook", srv.URL), fixtures.NewClock(t0))
	eventually(t, "connected", func() bool { return len(h.Tools()) == 3 })
	nb.AddTool(&mcp.Tool{Name: "count_notes", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, mcptest.Text("0"))
	eventually(t, "the new tool is offered", func() bool { return len(h.Tools()) == 4 })
	r, err := h.Call(t.Context(), "mcp__notebook__count_notes", nil)
	if err != nil || r.Text != "0" {
		t.Errorf("count_notes: %+v, %v", r, err)
	}
	if tools := h.Tools(); tools[1].Name != "mcp__notebook__count_notes" || tools[1].Risk != nod.Mutating {
		t.Errorf("Tools = %+v", tools)
	}
}

func stdioConfig(t *testing.T) mcpclient.Config {
	command, env := mcptest.StdioCommand(t)
	return mcpclient.Config{Servers: map[string]mcpclient.Server{"local": {Command: command, Env: env,
		Tools: map[string]nod.Risk{"list_notes": nod.ReadOnly}}}}
}

// children returns the processes this test process started that still
// run (Linux's /proc).
func children(t *testing.T) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc to find child processes in")
	}
	var out []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) && fields[0] != "Z" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			out = append(out, pid)
		}
	}
	return out
}

// A stdio server runs as a child process: listed, called, reconnected
// after it dies, and ended by Close.
func TestStdioServer(t *testing.T) {
	if len(children(t)) != 0 {
		t.Fatalf("child processes before the test: %v", children(t))
	}
	clock := fixtures.NewClock(t0)
	logs := &fixtures.LogBuffer{}
	h := mcpclient.New(stdioConfig(t), mcpclient.Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), After: clock.After})
	h.Start(t.Context())
	defer h.Close()
	eventually(t, "the child's tools are offered", func() bool { return len(h.Tools()) == 3 })
	if got := names(h.Tools()); !slices.Equal(got, []string{"mcp__local__add_note", "mcp__local__delete_note", "mcp__local__list_notes"}) {
		t.Errorf("Tools = %v", got)
	}
	r, err := h.Call(t.Context(), "mcp__local__add_note", json.RawMessage(`{"text":"from stdio"}`))
	if err != nil || r.Text != "added note 1: from stdio" {
		t.Errorf("add_note: %+v, %v", r, err)
	}
	r, err = h.Call(t.Context(), "mcp__local__list_notes", nil)
	if err != nil || string(r.Structured) != `{"notes":[{"id":1,"text":"from stdio"}]}` {
		t.Errorf("list_notes: %+v, %v", r, err)
	}

	kids := children(t)
	if len(kids) != 1 {
		t.Fatalf("children = %v, want the one server", kids)
	}
	if err := syscall.Kill(kids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the dead server is missed", func() bool { return len(h.Unavailable()) == 1 && len(clock.Waits()) == 1 })
	if h.Tools() != nil {
		t.Errorf("Tools of a dead server: %v", names(h.Tools()))
	}
	clock.Advance(time.Second)
	eventually(t, "a new child is offered", func() bool { return len(h.Tools()) == 3 })
	if !strings.Contains(logs.String(), "mcp server lost") {
		t.Errorf("the loss is not logged:\n%s", logs)
	}
	r, err = h.Call(t.Context(), "mcp__local__list_notes", nil)
	if err != nil || string(r.Structured) != `{"notes":[]}` {
		t.Errorf("list_notes of the new child: %+v, %v", r, err)
	}

	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if kids := children(t); len(kids) != 0 {
		t.Errorf("children after Close: %v", kids)
	}
}

// A call waits for the server's answer; one whose server goes away
// meanwhile is an error wrapping ErrUnavailable, never a result, and the
// caller's own deadline is its own error.
func TestCallInFlight(t *testing.T) {
	nb := mcptest.NewNotebook()
	srv := mcptest.ServeHTTP(t, nb)
	h, _ := start(t, httpConfig("notebook", srv.URL), fixtures.NewClock(t0))
	eventually(t, "connected", func() bool { return len(h.Tools()) == 3 })
	gate := nb.Gate("add_note")
	type answer struct {
		r   nod.ExternalResult
		err error
	}
	call := func(ctx context.Context) chan answer {
		out := make(chan answer, 1)
		go func() {
			r, err := h.Call(ctx, "mcp__notebook__add_note", json.RawMessage(`{"text":"held"}`))
			out <- answer{r, err}
		}()
		<-gate.Arrived()
		return out
	}

	held := call(t.Context())
	if len(nb.Notes()) != 0 {
		t.Fatal("a held call ran")
	}
	gate.Release()
	if a := <-held; a.err != nil || a.r.Text != "added note 1: held" {
		t.Errorf("released call: %+v, %v", a.r, a.err)
	}

	gate = nb.Gate("add_note")
	ctx, cancel := context.WithCancel(t.Context())
	held = call(ctx)
	cancel()
	if a := <-held; errors.Is(a.err, mcpclient.ErrUnavailable) || !errors.Is(a.err, mcpclient.ErrInterrupted) || !errors.Is(a.err, context.Canceled) {
		t.Errorf("a call its caller gave up: %v", a.err)
	}

	held = call(t.Context())
	srv.Stop()
	if a := <-held; !errors.Is(a.err, mcpclient.ErrUnavailable) || !errors.Is(a.err, mcpclient.ErrInterrupted) || a.r.Text != "" {
		t.Errorf("a call whose server went away: %+v, %v", a.r, a.err)
	}
	gate.Release()
}

// A stdio child gets the entry's env plus PATH and HOME, nothing else of
// nod's environment (its secrets stay nod's).
func TestStdioEnvironment(t *testing.T) {
	command, env := mcptest.StdioCommand(t)
	env[mcptest.EnvToolEnv], env["NOTES_DIR"] = "1", "/srv/notes"
	nodEnv := map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/nod", "TELEGRAM_BOT_TOKEN": "123:secret"}
	cfg := mcpclient.Config{Servers: map[string]mcpclient.Server{"local": {Command: command, Env: env}}}
	h := mcpclient.New(cfg, mcpclient.Options{After: fixtures.NewClock(t0).After, Getenv: func(k string) string { return nodEnv[k] }})
	h.Start(t.Context())
	defer h.Close()
	eventually(t, "connected", func() bool { return len(h.Tools()) == 4 })
	r, err := h.Call(t.Context(), "mcp__local__environment", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "HOME=/home/nod\n" + mcptest.EnvToolEnv + "=1\n" + mcptest.ChildEnv + "=1\nNOTES_DIR=/srv/notes\nPATH=/usr/bin:/bin"
	if r.Text != want {
		t.Errorf("the child's environment:\n%s\nwant:\n%s", r.Text, want)
	}
}

// A streamable HTTP server gets the entry's headers with every request.
func TestHTTPHeaders(t *testing.T) {
	srv := mcptest.ServeHTTP(t, mcptest.NewNotebook())
	srv.Require("Authorization", "Bearer s3cret")
	cfg := func(token string) mcpclient.Config {
		return mcpclient.Config{Servers: map[string]mcpclient.Server{"notebook": {URL: srv.URL,
			Headers: map[string]string{"Authorization": "Bearer " + token}}}}
	}
	clock := fixtures.NewClock(t0)
	wrong, logs := start(t, cfg("guess"), clock)
	eventually(t, "the refusal", func() bool { return strings.Contains(logs.String(), "mcp server unavailable") })
	if wrong.Tools() != nil || len(wrong.Unavailable()) != 1 {
		t.Errorf("a refused hub has tools %v", names(wrong.Tools()))
	}
	right, _ := start(t, cfg("s3cret"), clock)
	eventually(t, "connected", func() bool { return len(right.Tools()) == 3 })
	if r, err := right.Call(t.Context(), "mcp__notebook__add_note", json.RawMessage(`{"text":"with a token"}`)); err != nil || r.IsError {
		t.Errorf("add_note with the token: %+v, %v", r, err)
	}
}
