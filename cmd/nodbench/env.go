package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/bot"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/sweep"
)

// reporter is the fakes' test handle outside `go test`: errors are
// collected, a fatal one stops the scenario.
type reporter struct {
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

type fatal struct{ msg string }

func (r *reporter) Helper() {}
func (r *reporter) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}
func (r *reporter) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *reporter) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{fmt.Sprintf(format, args...)})
}
func (r *reporter) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *reporter) close() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.cleanups = nil
}

// env is nod running in-process on the fakes, wired by hand from the plain
// constructors (no fx: the packages do not need it).
type env struct {
	r   *reporter
	tg  *telegramtest.Server
	llm *openaitest.Server
	db  *storage.DB
	bot *bot.Bot
	reg *prometheus.Registry // the bot's metrics
}

const (
	agentModel = "agent-model"
	clfModel   = "clf-model"
)

// start runs nod with users 1..users allowed (and 42) on a fresh database,
// with Telegram's round trip rtt injected in the fake. The fakes' and
// nod's goroutines carry the pprof labels that tell their CPU apart.
func start(r *reporter, dsn string, users int, rtt time.Duration) (*env, error) {
	e := &env{r: r}
	labeled(partFake, func() {
		e.tg, e.llm = telegramtest.New(r), openaitest.New(r)
		e.tg.Wire().SetRoundTrip(rtt)
	})
	var err error
	labeled(partNod, func() { err = e.open(dsn, users) })
	return e, err
}

// open starts nod on the fakes.
func (e *env) open(dsn string, users int) error {
	dsn, err := benchDSN(e.r, dsn)
	if err != nil {
		return err
	}
	n, err := openNod(e.r, e.tg.URL, e.llm.URL, dsn, users)
	if err != nil {
		return err
	}
	e.db, e.bot, e.reg = n.db, n.bot, n.reg
	return nil
}

// benchDSN is where a run's nod keeps its data: a schema of its own on
// PostgreSQL, a fresh SQLite file otherwise, both gone after the run.
func benchDSN(r *reporter, dsn string) (string, error) {
	if storage.IsPostgres(dsn) {
		return freshSchema(r, dsn)
	}
	if dsn != "" {
		return dsn, nil
	}
	dir, err := os.MkdirTemp("", "nodbench")
	if err != nil {
		return "", err
	}
	r.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "nod.db"), nil
}

// nodParts is nod wired by hand from the plain constructors, on the
// fakes at tgURL and llmURL.
type nodParts struct {
	db  *storage.DB
	bot *bot.Bot
	reg *prometheus.Registry // the bot's metrics
}

// openNod starts nod on the database at dsn with users 1..users allowed
// (and 42); r's cleanups stop it.
func openNod(r *reporter, tgURL, llmURL, dsn string, users int) (*nodParts, error) {
	log := slog.New(slog.DiscardHandler)
	n := &nodParts{db: storage.New(storage.Options{DSN: dsn}, time.Now, log)}
	if err := n.db.Open(context.Background()); err != nil {
		return nil, err
	}
	r.Cleanup(func() { n.db.Close() })
	clf := confidence.New(confidence.Options{BaseURL: llmURL, Model: clfModel, Timeout: 30 * time.Second, Lexicon: formatting.Words}, log)
	ag := agent.New(agent.Options{BaseURL: llmURL, Model: agentModel, StepTimeout: 60 * time.Second, Lexicon: formatting.Words}, agent.Deps{Tasks: n.db.Tasks(), Editor: n.db.Tasks(), Settings: n.db.Settings(), Conversation: n.db.Conversation(), Proposals: n.db.ChangeSets(), Memory: n.db.ChangeSets(), Undone: n.db.Undo(), Rulebook: n.db.Rules(), Classifier: clf}, time.Now, log)
	allowed := []nod.UserID{42}
	for i := 1; i <= users; i++ {
		allowed = append(allowed, nod.UserID(i))
	}
	// The fake sets no rate limits: the bench measures nod, not Telegram's
	// caps (which the bot's limiter would enforce at 30 messages a second).
	unlimited := bot.Limits{PerChat: 1e6, PerChatBurst: 1e6, PerGroup: 1e8, Global: 1e6}
	c := confirm.New(confirm.Deps{Decisions: n.db.ChangeSets(), Tasks: n.db.Tasks(), Editor: n.db.Tasks(), Undos: n.db.Undo(), Breaker: n.db.Settings(), Rules: n.db.Rules(), Deletions: n.db.Deletions(), Replies: n.db.ChangeSets(), Words: answer.NewReader(formatting.AnswerWords())}, time.Now, log, nil)
	n.reg = prometheus.NewRegistry()
	// Only the sweep at start runs: a periodic one would land in whatever
	// turn or tap is being measured when a run takes minutes (the race
	// detector, 10,000 tasks); the reminder bench sweeps on its own.
	n.bot = bot.New(bot.Options{Token: telegramtest.Token, APIURL: tgURL, AllowedUsers: allowed, PollTimeout: 5 * time.Second, Limits: unlimited, Metrics: n.reg,
		SweepInterval: 24 * time.Hour},
		bot.Deps{Updates: n.db.Outbox(), Tasks: n.db.Tasks(), Audit: n.db.Audit(), Sets: n.db.ChangeSets(), Undos: n.db.Undo(), Chats: n.db.Settings(), Rulebook: n.db.Rules(),
			Conversation: n.db.Conversation(), Messages: n.db.Messages(), Buttons: n.db.Messages(), Deletions: n.db.Deletions(), Answers: c, Keeper: n.db.ChangeSets(), Outbox: n.db.Outbox(),
			Sweep:  sweep.New(sweep.Deps{Expiry: n.db.ChangeSets(), Deletions: n.db.Deletions(), Trash: n.db.Tasks(), Buttons: n.db.Messages(), Updates: n.db.Outbox(), Outbox: n.db.Outbox(), Tasks: n.db.Tasks()}, sweep.Options{AllowedUsers: allowed}, time.Now, log),
			Turner: ag, Decider: c, Mender: c, Changer: c, Rules: c}, time.Now, log)
	if err := n.bot.Start(context.Background()); err != nil {
		return nil, err
	}
	r.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		n.bot.Stop(ctx)
	})
	return n, nil
}

// freshSchema makes a schema of its own for one run, dropped afterwards:
// every run starts from an empty database, as with SQLite.
func freshSchema(r *reporter, dsn string) (string, error) {
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", err
	}
	schema := "nodbench_" + nod.NewID()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		return "", fmt.Errorf("create schema: %w", err)
	}
	r.Cleanup(func() {
		admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema, nil
}

// seed stores a task of chat.
func (e *env) seed(chat nod.ChatID, t nod.Task) {
	if t.Status == "" {
		t.Status = nod.StatusOpen
	}
	if t.Priority == "" {
		t.Priority = nod.P2
	}
	_, err := e.db.Tasks().Apply(context.Background(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: nod.ToolSeed, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(*nod.Task) (nod.Task, error) { return t, nil }})
	if err != nil {
		e.r.Fatalf("seed: %v", err)
	}
}

// percentile returns the p-th percentile of ds (0 < p ≤ 100).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}
