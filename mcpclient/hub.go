package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nodbot/nod"
)

// ErrUnavailable is the error of a call whose tool is not offered now:
// its server is down, unknown, or went away during the call.
var ErrUnavailable = errors.New("MCP tool unavailable")

// ErrInterrupted is the error of a call that was sent but got no answer:
// the connection broke, or the caller gave up, meanwhile. Whether the
// server ran it is unknown; an error without it never reached a server
// or was answered by one.
var ErrInterrupted = errors.New("the MCP call was sent, and whether it ran is unknown")

// Backoff between attempts to reach a server: from minBackoff doubling
// to maxBackoff.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// listTimeout bounds connecting to a server and listing its tools.
const listTimeout = 30 * time.Second

// transportCodes are the SDK's JSON-RPC codes for a request that never
// reached the server or a connection closing (its jsonrpc2 package's
// ErrRejected, ErrClientClosing and ErrServerClosing): the server is gone,
// not answering.
var transportCodes = []int64{-32005, -32003, -32004}

// Options are a Hub's settings; every field may be left zero.
type Options struct {
	Logger *slog.Logger
	// After is time.After, replaced in tests so that no test sleeps
	// through a backoff.
	After func(time.Duration) <-chan time.Time
	// HTTPClient reaches streamable HTTP servers; it must not set a
	// Timeout, which would cut the server's event stream.
	HTTPClient *http.Client
	// Version is nod's, told to servers.
	Version string
	// Getenv reads PATH and HOME for a stdio child (os.Getenv if nil).
	Getenv func(string) string
}

// Hub holds the operator's MCP servers: one connection each, kept up in
// the background, and the tools of those connected now. A nil Hub has no
// servers.
type Hub struct {
	cfg  Config
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	servers map[string]*server
	tools   []nod.ExternalTool // of connected servers, sorted by Name
	byName  map[nod.Tool]nod.ExternalTool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// server is one configured server and its connection, if any.
type server struct {
	name    string
	entry   Server
	session *mcp.ClientSession // nil while not connected
	tools   []nod.ExternalTool
	warned  map[string]bool // what was logged once: unknown "tools" entries, skipped tools
	changed chan struct{}   // the server's tool list changed
	lost    chan *mcp.ClientSession
}

// New returns a hub for cfg; Start connects it.
func New(cfg Config, opts Options) *Hub {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	h := &Hub{cfg: cfg, opts: opts, log: opts.Logger, servers: map[string]*server{}, byName: map[nod.Tool]nod.ExternalTool{}}
	for name, e := range cfg.Servers {
		h.servers[name] = &server{name: name, entry: e, warned: map[string]bool{},
			changed: make(chan struct{}, 1), lost: make(chan *mcp.ClientSession, 1)}
	}
	return h
}

// Start connects every server in the background, each retried with
// backoff while it cannot be reached; a second Start does nothing. Close
// stops them.
func (h *Hub) Start(ctx context.Context) {
	if h == nil || len(h.servers) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel != nil { // once: a second Start would connect every server twice
		return
	}
	ctx, h.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for _, name := range slices.Sorted(maps.Keys(h.servers)) {
		s := h.servers[name]
		h.wg.Go(func() { h.run(ctx, s) })
	}
}

// Close ends every connection (a stdio server's process with it) and
// waits for the hub's goroutines.
func (h *Hub) Close() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	cancel := h.cancel
	h.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	h.wg.Wait()
	h.opts.HTTPClient.CloseIdleConnections()
	return nil
}

// Tools returns the tools of the servers connected now, sorted by Name.
func (h *Hub) Tools() []nod.ExternalTool {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.tools)
}

// Unavailable returns the names of the configured servers not connected
// now, sorted.
func (h *Hub) Unavailable() []string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for name, s := range h.servers {
		if s.session == nil {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Call calls the tool named name (mcp__SERVER__TOOL) with args, a JSON
// object. A tool not offered now is an error wrapping ErrUnavailable
// (nothing was sent); a server that goes away during the call, one
// wrapping ErrUnavailable and ErrInterrupted; a caller that gives up, one
// wrapping ErrInterrupted and its context's error; an error the server
// answers with is an error wrapping neither. A result is only ever the
// server's.
func (h *Hub) Call(ctx context.Context, name nod.Tool, args json.RawMessage) (nod.ExternalResult, error) {
	if h == nil {
		return nod.ExternalResult{}, fmt.Errorf("%w: %s (no MCP servers configured)", ErrUnavailable, name)
	}
	h.mu.Lock()
	t, ok := h.byName[name]
	var s *server
	var cs *mcp.ClientSession
	if ok {
		s = h.servers[t.Server]
		cs = s.session
	}
	h.mu.Unlock()
	if !ok || cs == nil {
		return nod.ExternalResult{}, fmt.Errorf("%w: %s", ErrUnavailable, name)
	}
	var arguments any
	if len(args) > 0 {
		arguments = args
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.Tool, Arguments: arguments})
	if err != nil {
		var answered *jsonrpc.Error
		switch {
		case ctx.Err() != nil:
			return nod.ExternalResult{}, fmt.Errorf("%w: calling %s: %w", ErrInterrupted, name, err)
		case errors.As(err, &answered) && !slices.Contains(transportCodes, answered.Code):
			return nod.ExternalResult{}, fmt.Errorf("calling %s: the server answered: %w", name, err)
		}
		select { // the connection is broken: the server's loop reconnects
		case s.lost <- cs:
		default:
		}
		return nod.ExternalResult{}, fmt.Errorf("%w: %w: calling %s: %w", ErrUnavailable, ErrInterrupted, name, err)
	}
	return result(r), nil
}

// run keeps one server connected until ctx ends: a server that cannot be
// reached, or whose session ends, is tried again after a backoff of 1 s
// doubling to 1 min. Each episode of failures is logged once.
func (h *Hub) run(ctx context.Context, s *server) {
	log := h.log.With("server", s.name)
	var (
		wait    time.Duration
		retry   <-chan time.Time // nil at first: connect at once
		failing bool
	)
	for {
		if retry != nil {
			select {
			case <-ctx.Done():
				return
			case <-retry:
			}
		}
		connected, err := h.serve(ctx, s, log)
		if ctx.Err() != nil {
			return
		}
		switch {
		case connected:
			wait = minBackoff
		case failing:
			wait = min(2*wait, maxBackoff)
		default:
			wait = minBackoff
		}
		// The timer is set before the line is logged, so that a test that
		// reads the line and moves its clock finds the retry waiting.
		retry = h.opts.After(wait)
		switch {
		case connected: // a new episode, logged here
			log.Warn("mcp server lost; reconnecting", "err", err)
		case !failing:
			log.Warn("mcp server unavailable; retrying in the background", "err", err)
		default:
			log.Debug("mcp server still unavailable", "err", err, "retry_in", wait)
		}
		failing = true
	}
}

// serve connects s, offers its tools while the session lasts, and
// returns why it ended; connected reports whether it ever was.
func (h *Hub) serve(ctx context.Context, s *server, log *slog.Logger) (connected bool, err error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "nod", Version: h.opts.Version}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		},
	})
	cctx, cancel := context.WithTimeout(ctx, listTimeout)
	cs, err := client.Connect(cctx, h.transport(s, log), nil)
	cancel()
	if err != nil {
		return false, err
	}
	defer cs.Close()
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	if err := h.list(ctx, s, cs, log); err != nil {
		return false, err
	}
	defer h.offer(s, nil, nil)
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case err := <-ended:
			if err == nil {
				err = errors.New("the server ended the session")
			}
			return true, err
		case lost := <-s.lost:
			if lost == cs {
				return true, errors.New("a call found the connection broken")
			}
		case <-s.changed:
			if err := h.list(ctx, s, cs, log); err != nil {
				return true, err
			}
		}
	}
}

// list reads s's tools and offers them.
func (h *Hub) list(ctx context.Context, s *server, cs *mcp.ClientSession, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	var tools []nod.ExternalTool
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		seen[t.Name] = true
		name, ok := toolName(s.name, t.Name)
		if !ok {
			if !s.warned["skip "+t.Name] {
				s.warned["skip "+t.Name] = true
				log.Warn("mcp tool skipped: its name is not one the model API takes", "tool", t.Name, "name", name)
			}
			continue
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		tools = append(tools, nod.ExternalTool{Name: name, Server: s.name, Tool: t.Name, Description: desc,
			Schema: cleanSchema(t.InputSchema), Risk: risk(s.entry, t)})
	}
	slices.SortFunc(tools, func(a, b nod.ExternalTool) int { return cmpTool(a.Name, b.Name) })
	for _, name := range slices.Sorted(maps.Keys(s.entry.Tools)) {
		if !seen[name] && !s.warned[name] {
			s.warned[name] = true
			log.Warn(`mcp configuration names a tool the server does not have; its "tools" entry waits unused`, "tool", name)
		}
	}
	h.mu.Lock()
	was := s.session
	h.mu.Unlock()
	h.offer(s, cs, tools)
	if was == nil {
		log.Info("mcp server connected", "tools", len(tools))
	} else {
		log.Info("mcp server's tools changed", "tools", len(tools))
	}
	return nil
}

func cmpTool(a, b nod.Tool) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// offer sets s's session and tools (none while cs is nil) and rebuilds
// the hub's view of every tool.
func (h *Hub) offer(s *server, cs *mcp.ClientSession, tools []nod.ExternalTool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.session, s.tools = cs, tools
	h.tools = nil
	h.byName = map[nod.Tool]nod.ExternalTool{}
	for _, name := range slices.Sorted(maps.Keys(h.servers)) {
		for _, t := range h.servers[name].tools {
			h.tools = append(h.tools, t)
			h.byName[t.Name] = t
		}
	}
	slices.SortFunc(h.tools, func(a, b nod.ExternalTool) int { return cmpTool(a.Name, b.Name) })
}

// transport is how s is reached: its command as a child process (its
// entry's env plus PATH and HOME, nothing else of nod's environment), or
// streamable HTTP with the entry's headers.
func (h *Hub) transport(s *server, log *slog.Logger) mcp.Transport {
	e := s.entry
	if e.URL != "" {
		client := *h.opts.HTTPClient
		base := client.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		client.Transport = headers{base: base, h: e.Headers}
		return &mcp.StreamableClientTransport{Endpoint: e.URL, HTTPClient: &client, MaxRetries: -1}
	}
	cmd := exec.Command(e.Command, e.Args...)
	env := map[string]string{}
	for _, k := range []string{"PATH", "HOME"} {
		if v := h.opts.Getenv(k); v != "" {
			env[k] = v
		}
	}
	maps.Copy(env, e.Env)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	cmd.Stderr = &stderrLog{log: log}
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
}

// headers adds an entry's headers to every request.
type headers struct {
	base http.RoundTripper
	h    map[string]string
}

func (t headers) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.h) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.h {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

// stderrLog logs what a stdio server writes to its stderr, a line at a
// time (each cut to maxStderrLine), so that an operator sees why it failed.
type stderrLog struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

const maxStderrLine = 1000

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) > maxStderrLine {
				w.emit(w.buf)
				w.buf = w.buf[:0]
			}
			return len(p), nil
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}

func (w *stderrLog) emit(line []byte) {
	s := string(line[:min(len(line), maxStderrLine)])
	if s != "" {
		w.log.Info("mcp server stderr", "line", s)
	}
}
