package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/bot"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/mcpclient"
	"github.com/nodbot/nod/place"
	"github.com/nodbot/nod/speech"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/sweep"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
)

// Clock is the time source of the whole process; tests replace it.
type Clock func() time.Time

// Timer is Clock's time.After: tests replace it with their clock's, so
// that a wait ends when the test moves the clock.
type Timer func(time.Duration) <-chan time.Time

// Each storage interface of agent, bot and sweep is one repository's.
var (
	_ agent.Tasks        = (*storage.Tasks)(nil)
	_ agent.Editor       = (*storage.Tasks)(nil)
	_ agent.Settings     = (*storage.Settings)(nil)
	_ agent.Conversation = (*storage.Conversation)(nil)
	_ agent.Proposals    = (*storage.ChangeSets)(nil)
	_ agent.Memory       = (*storage.ChangeSets)(nil)
	_ agent.Undone       = (*storage.Undo)(nil)
	_ agent.Rulebook     = (*storage.Rules)(nil)
	_ agent.Zones        = (*storage.Schedule)(nil)
	_ bot.Updates        = (*storage.Outbox)(nil)
	_ bot.Tasks          = (*storage.Tasks)(nil)
	_ bot.AuditLog       = (*storage.Audit)(nil)
	_ bot.Sets           = (*storage.ChangeSets)(nil)
	_ bot.Undos          = (*storage.Undo)(nil)
	_ bot.Chats          = (*storage.Settings)(nil)
	_ bot.Rulebook       = (*storage.Rules)(nil)
	_ bot.Conversation   = (*storage.Conversation)(nil)
	_ bot.Messages       = (*storage.Messages)(nil)
	_ bot.Buttons        = (*storage.Messages)(nil)
	_ bot.Deletions      = (*storage.Deletions)(nil)
	_ bot.Keeper         = (*storage.ChangeSets)(nil)
	_ bot.Outbox         = (*storage.Outbox)(nil)
	_ bot.Days           = (*storage.Schedule)(nil)
	_ bot.People         = (*storage.Settings)(nil)
	_ bot.Exporter       = (*storage.Exports)(nil)
	_ sweep.Expiry       = (*storage.ChangeSets)(nil)
	_ sweep.Deletions    = (*storage.Deletions)(nil)
	_ sweep.Trash        = (*storage.Tasks)(nil)
	_ sweep.Buttons      = (*storage.Messages)(nil)
	_ sweep.Updates      = (*storage.Outbox)(nil)
	_ sweep.Outbox       = (*storage.Outbox)(nil)
	_ sweep.Schedule     = (*storage.Schedule)(nil)
	_ sweep.Tasks        = (*storage.Tasks)(nil)
	_ confirm.Decisions  = (*storage.ChangeSets)(nil)
	_ confirm.Tasks      = (*storage.Tasks)(nil)
	_ confirm.Editor     = (*storage.Tasks)(nil)
	_ confirm.Undos      = (*storage.Undo)(nil)
	_ confirm.Breaker    = (*storage.Settings)(nil)
	_ confirm.Rules      = (*storage.Rules)(nil)
	_ confirm.Deletions  = (*storage.Deletions)(nil)
	_ confirm.Replies    = (*storage.ChangeSets)(nil)
)

var (
	_ agent.Classifier = (*confidence.Classifier)(nil)
	_ agent.Answerer   = (*confirm.Service)(nil)
	_ bot.Turner       = (*agent.Agent)(nil)
	_ bot.Sweeper      = (*sweep.Sweeper)(nil)
	_ bot.Reminders    = (*confirm.Taps)(nil)
	_ bot.Answers      = (*confirm.Service)(nil)
	_ bot.Places       = (*place.Finder)(nil)
	_ agent.Cities     = (*place.Finder)(nil)
	_ bot.Transcriber  = (*speech.Transcriber)(nil)
)

// newLogger logs to w, masking every secret of cfg wherever it appears.
func newLogger(cfg config, w io.Writer) *slog.Logger {
	secrets := cfg.secrets()
	opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Value.Kind() == slog.KindAny {
			if err, ok := a.Value.Any().(error); ok {
				a.Value = slog.StringValue(err.Error())
			}
		}
		if a.Value.Kind() == slog.KindString {
			s := a.Value.String()
			for _, sec := range secrets {
				s = strings.ReplaceAll(s, sec, "***")
			}
			a.Value = slog.StringValue(s)
		}
		return a
	}}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func newDB(cfg config, now Clock, log *slog.Logger) *storage.DB {
	return storage.New(storage.Options{DSN: cfg.DB, UndoWindow: cfg.UndoWindow, ChangeSetTTL: cfg.ChangeSetTTL, AuditKey: []byte(cfg.AuditKey)},
		now, log.With("component", "storage"))
}

func migrate(ctx context.Context, cfg config, log *slog.Logger) error {
	l := &dbLock{dsn: cfg.DB}
	if err := l.hold(ctx); err != nil {
		return err
	}
	defer l.release(ctx)
	db := newDB(cfg, time.Now, log)
	defer db.Close()
	return db.Migrate(ctx)
}

// newRegistry holds the process's metrics; nothing registers globally.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

func newClassifier(cfg config, reg *prometheus.Registry, now Clock, log *slog.Logger) *confidence.Classifier {
	return confidence.New(confidence.Options{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.ClassifierModel,
		Timeout: cfg.ClassifierTimeout, Metrics: reg, Now: now, Lexicon: formatting.Words}, log.With("component", "classifier"))
}

func newAgent(cfg config, db *storage.DB, clf *confidence.Classifier, c *confirm.Service, hub *mcpclient.Hub, reg *prometheus.Registry, now Clock, log *slog.Logger) *agent.Agent {
	return agent.New(agent.Options{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, MaxRetries: 2, Model: cfg.Model,
		StepTimeout: cfg.StepTimeout, MaxSteps: cfg.MaxSteps, ConfirmWindow: cfg.ConfirmWindow, Metrics: reg, TimeZone: cfg.TimeZone, Lexicon: formatting.Words},
		agent.Deps{Tasks: db.Tasks(), Editor: db.Tasks(), Settings: db.Settings(), Conversation: db.Conversation(), Proposals: db.ChangeSets(), Memory: db.ChangeSets(), Undone: db.Undo(), Rulebook: db.Rules(), Classifier: clf, Answers: c, Words: answer.NewReader(formatting.AnswerWords()), Zones: db.Schedule(), Cities: place.Shared, External: hubCalls{hub}, Calls: db.Calls()}, now, log.With("component", "agent"))
}

func newConfirmations(cfg config, db *storage.DB, hub *mcpclient.Hub, reg *prometheus.Registry, now Clock, log *slog.Logger) *confirm.Service {
	return confirm.New(confirm.Deps{Decisions: db.ChangeSets(), Tasks: db.Tasks(), Editor: db.Tasks(), Undos: db.Undo(), Breaker: db.Settings(), Rules: db.Rules(), Deletions: db.Deletions(), Replies: db.ChangeSets(),
		Forgets: db.People(), ForgetWords: formatting.Words("forget"), ConfirmWindow: cfg.ConfirmWindow, Words: answer.NewReader(formatting.AnswerWords()),
		External: hubCalls{hub}, Calls: db.Calls()}, now, log.With("component", "confirm"), reg)
}

// newTranscriber hears voice messages, at OPENAI_BASE_URL unless
// NOD_TRANSCRIBE_URL names another endpoint (a local whisper server).
func newTranscriber(cfg config, reg *prometheus.Registry, log *slog.Logger) *speech.Transcriber {
	return speech.New(speech.Options{BaseURL: cfg.TranscribeURL, APIKey: cfg.APIKey, Model: cfg.TranscribeModel, Metrics: reg},
		log.With("component", "speech"))
}

func newSweeper(cfg config, db *storage.DB, now Clock, log *slog.Logger) *sweep.Sweeper {
	return sweep.New(sweep.Deps{Expiry: db.ChangeSets(), Deletions: db.Deletions(), Forgets: db.People(), Trash: db.Tasks(), Buttons: db.Messages(), Updates: db.Outbox(), Outbox: db.Outbox(), Schedule: db.Schedule(), Tasks: db.Tasks()},
		sweep.Options{ChangeSetTTL: cfg.ChangeSetTTL, TrashRetention: cfg.TrashRetention, UndoWindow: cfg.UndoWindow, AllowedUsers: cfg.AllowedUsers, TimeZone: cfg.TimeZone},
		now, log.With("component", "sweep"))
}

func newBot(cfg config, db *storage.DB, a *agent.Agent, c *confirm.Service, sw *sweep.Sweeper, ears *speech.Transcriber, reg *prometheus.Registry, now Clock, after Timer, log *slog.Logger) *bot.Bot {
	return bot.New(bot.Options{Token: cfg.Token, APIURL: strings.TrimRight(cfg.TelegramURL, "/"), AllowedUsers: cfg.AllowedUsers,
		ChangeSetTTL: cfg.ChangeSetTTL, TrashRetention: cfg.TrashRetention, SweepInterval: cfg.SweepInterval, UpdateTimeout: cfg.UpdateTimeout,
		WebhookURL: cfg.WebhookURL, WebhookSecret: cfg.WebhookSecret, Metrics: reg, TimeZone: cfg.TimeZone, VoiceMax: cfg.VoiceMax,
		Limits: bot.Limits{PerChat: cfg.RateChat, PerChatBurst: cfg.RateChatBurst, PerGroup: cfg.RateGroup, Global: cfg.RateGlobal}, After: after},
		bot.Deps{Updates: db.Outbox(), Tasks: db.Tasks(), Audit: db.Audit(), Sets: db.ChangeSets(), Undos: db.Undo(), Chats: db.Settings(), Rulebook: db.Rules(),
			Conversation: db.Conversation(), Messages: db.Messages(), Buttons: db.Messages(), Deletions: db.Deletions(), Answers: c, Keeper: db.ChangeSets(), Outbox: db.Outbox(), Sweep: sw,
			Turner: a, Decider: c, Mender: c, Changer: c, Rules: c, Days: db.Schedule(), Reminders: c.Taps(), Places: place.Shared, People: db.Settings(), Transcriber: ears, Exports: db.Exports(), Calls: db.Calls()}, now, log.With("component", "bot"))
}

// newHub holds the operator's MCP servers (NOD_MCP_CONFIG); with none
// configured it has no tools and nothing unavailable. It retries a server
// on the process's timer, so tests move the backoff on their clock.
func newHub(cfg config, after Timer, log *slog.Logger) *mcpclient.Hub {
	getenv := cfg.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return mcpclient.New(cfg.MCP, mcpclient.Options{Logger: log.With("component", "mcp"), After: after, Version: Version(), Getenv: getenv})
}

// startHub connects the MCP servers in the background: one that is down
// does not stop nod, its tools are absent until it answers.
func startHub(h *mcpclient.Hub, cfg config, log *slog.Logger) func(context.Context) error {
	return func(ctx context.Context) error {
		if len(cfg.MCP.Servers) > 0 {
			names := make([]string, 0, len(cfg.MCP.Servers))
			for name := range cfg.MCP.Servers {
				names = append(names, name)
			}
			slices.Sort(names)
			log.Info("mcp servers configured", "servers", strings.Join(names, ","), "config", cfg.MCPConfig)
		}
		h.Start(ctx)
		return nil
	}
}

// hubCalls is the hub as the agent and confirm call it: a call that
// never left nod (its tool not offered now) is marked nod.ErrNotSent, so
// that nobody is told its outcome is unknown: it did not run.
type hubCalls struct{ *mcpclient.Hub }

func (h hubCalls) Call(ctx context.Context, name nod.Tool, args json.RawMessage) (nod.ExternalResult, error) {
	r, err := h.Hub.Call(ctx, name, args)
	if errors.Is(err, mcpclient.ErrUnavailable) && !errors.Is(err, mcpclient.ErrInterrupted) {
		err = fmt.Errorf("%w: %w", nod.ErrNotSent, err)
	}
	return r, err
}

// httpServer serves health checks on NOD_HTTP_ADDR.
type httpServer struct {
	srv *http.Server
	ln  net.Listener
	log *slog.Logger
}

func newHTTPServer(cfg config, db *storage.DB, b *bot.Bot, reg *prometheus.Registry, log *slog.Logger) *httpServer {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if p := b.WebhookPath(); p != "" {
		mux.Handle("POST "+p, b)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := db.Ping(r.Context()); err != nil {
			http.Error(w, "database unreachable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return &httpServer{srv: newListener(cfg.HTTPAddr, mux), log: log}
}

// newListener bounds what one client may hold of NOD_HTTP_ADDR: Telegram's
// webhook posts (at most maxWebhookBody), health checks and scrapes are
// small and answered at once, so a slow, idle or oversized client is cut
// off rather than kept.
func newListener(addr string, h http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // headers and a webhook body
		WriteTimeout:      30 * time.Second, // /readyz pings the database: a hung one is cut off
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
}

func (h *httpServer) start(context.Context) error {
	ln, err := net.Listen("tcp", h.srv.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("NOD_HTTP_ADDR %s is in use (another nod? Prometheus listens on 9090 too): "+
			"set NOD_HTTP_ADDR or -http-addr to a free port, or 127.0.0.1:0 for any", h.srv.Addr)
	}
	if err != nil {
		return fmt.Errorf("listen on NOD_HTTP_ADDR %s: %w", h.srv.Addr, err)
	}
	h.ln = ln
	h.log.Info("listening", "addr", ln.Addr().String())
	go func() {
		if err := h.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.log.Error("http server", "err", err)
		}
	}()
	return nil
}

func (h *httpServer) stop(ctx context.Context) error { return h.srv.Shutdown(ctx) }

// keyedNeedsKey refuses to start without NOD_AUDIT_KEY on a keyed audit
// log: every plain row written after a keyed one breaks verification
// (docs/design.md §6).
func keyedNeedsKey(ctx context.Context, db *storage.DB, key string) error {
	if key != "" {
		return nil
	}
	keyed, err := db.Audit().AuditKeyed(ctx)
	if err != nil {
		return err
	}
	if keyed {
		return errors.New("the audit log is keyed with NOD_AUDIT_KEY: start nod with the same NOD_AUDIT_KEY (or -audit-key), or its new rows would break the chain")
	}
	return nil
}

// Option changes what Run wires: tests and the playground run nod on a
// clock of their own.
type Option func(*wiring)

// wiring is what Options set; zero values keep the process's own.
type wiring struct {
	clock Clock
	timer Timer
}

// WithClock runs nod on clock instead of the system's.
func WithClock(clock Clock) Option { return func(w *wiring) { w.clock = clock } }

// WithTimer makes nod wait on timer, where it waits on its clock (between
// polls a server answers at once), instead of the system's timers.
func WithTimer(timer Timer) Option { return func(w *wiring) { w.timer = timer } }

// serve wires nod with fx and runs it until ctx is done.
func serve(ctx context.Context, cfg config, log *slog.Logger, options ...Option) error {
	w := wiring{clock: time.Now, timer: time.After}
	for _, o := range options {
		o(&w)
	}
	opts := []fx.Option{
		fx.WithLogger(func() fxevent.Logger {
			l := &fxevent.SlogLogger{Logger: log.With("component", "fx")}
			l.UseLogLevel(slog.LevelDebug)
			// A failed start is reported once, by Run's caller.
			l.UseErrorLevel(slog.LevelDebug)
			return l
		}),
		fx.Supply(cfg, log),
		fx.Provide(
			func() Clock { return w.clock },
			func() Timer { return w.timer },
			newRegistry, newDB, newClassifier, newAgent, newConfirmations, newTranscriber, newSweeper, newBot, newHTTPServer, newHub,
		),
		fx.Invoke(func(lc fx.Lifecycle, cfg config, db *storage.DB, h *httpServer, b *bot.Bot, hub *mcpclient.Hub) {
			// What a person can get wrong is checked before the database
			// is opened, so that a failed start leaves no file behind.
			lc.Append(fx.Hook{OnStart: b.Check})
			lc.Append(fx.Hook{OnStart: h.start, OnStop: h.stop})
			// Held from before the database opens to after it closes: nod
			// restore refuses to replace a database in use (lock.go).
			l := &dbLock{dsn: cfg.DB}
			lc.Append(fx.Hook{OnStart: l.hold, OnStop: l.release})
			lc.Append(fx.Hook{OnStart: db.Open, OnStop: func(context.Context) error { return db.Close() }})
			lc.Append(fx.Hook{OnStart: func(ctx context.Context) error { return keyedNeedsKey(ctx, db, cfg.AuditKey) }})
			lc.Append(fx.Hook{OnStart: func(ctx context.Context) error { logLastEval(ctx, db, cfg.ClassifierModel, log); return nil }})
			a := newAnchor(db, log.With("component", "audit"), anchorEvery)
			lc.Append(fx.Hook{OnStart: a.start, OnStop: a.stop})
			lc.Append(fx.Hook{OnStart: startHub(hub, cfg, log.With("component", "mcp")), OnStop: func(context.Context) error { return hub.Close() }})
			lc.Append(fx.Hook{OnStart: b.Start, OnStop: b.Stop})
		}),
	}
	app := fx.New(opts...)
	if err := app.Err(); err != nil {
		return err
	}
	// A stop asked for during the start waits for the start to end: fx
	// gives up a start cut by its context without stopping the hooks that
	// had started (the database, the lock, the polling).
	startCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return err
	}
	if ctx.Err() == nil {
		log.Info("running")
		<-ctx.Done()
	}
	log.Info("stopping")
	stopCtx, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	return app.Stop(stopCtx)
}
