package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/bot"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/sweep"
)

// reminders is what the reminder bench measured: n reminders due in the
// same minute, among as many tasks without one, and daily reviews due in
// as many chats, fired by replicas nods sweeping one database.
type reminders struct {
	N          int           `json:"reminders"`
	Dailies    int           `json:"daily_reviews"`
	Tasks      int           `json:"tasks"`
	Replicas   int           `json:"replicas"`
	Database   string        `json:"database"`
	Sent       int           `json:"sent"`
	Duplicates int           `json:"duplicates"`
	P50        time.Duration `json:"due_to_sent_p50_ns"`
	P99        time.Duration `json:"due_to_sent_p99_ns"`
	All        time.Duration `json:"due_to_last_sent_ns"`
	PerSecond  float64       `json:"reminders_per_second"`
	// Statements is per item due, reminder or daily review: its claim,
	// the daily review's turn, the message and its delivery.
	Statements float64 `json:"statements_per_due_item"`
	BySweep    []int   `json:"sent_by_replica"`
}

// chatsOf spreads the bench's reminders over this many chats.
const reminderChats = 1000

// reminderBench seeds n tasks with a reminder due a few seconds ahead and
// n without, and dailies chats with a daily review due then, starts
// replicas bots on the database with Telegram's rate limits lifted, and
// waits until every reminder and review went out.
func reminderBench(dsn string, n, dailies, replicas int) (reminders, error) {
	r := &reporter{}
	defer r.close()
	rep := reminders{N: n, Dailies: dailies, Tasks: 2 * n, Replicas: replicas, Database: "sqlite"}
	if storage.IsPostgres(dsn) {
		rep.Database = "postgres"
	}
	dsn, err := reminderDSN(r, dsn, replicas)
	if err != nil {
		return rep, err
	}
	log := slog.New(slog.DiscardHandler)
	tg, llm := telegramtest.New(r), openaitest.New(r)
	tg.Strict = false
	llm.Handle(func(openaitest.Request) openaitest.Response { return openaitest.Text("Nothing needs you today.") })
	var dbs []*storage.DB
	for range replicas {
		db := storage.New(storage.Options{DSN: dsn}, time.Now, log)
		if err := db.Open(context.Background()); err != nil {
			return rep, err
		}
		r.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	due := time.Now().Add(5 * time.Second).Truncate(time.Microsecond)
	if err := seedReminders(dsn, n, dailies, due); err != nil {
		return rep, fmt.Errorf("seed: %w", err)
	}
	logs, err := startReplicas(r, dbs, tg.URL, llm.URL, log)
	if err != nil {
		return rep, err
	}
	time.Sleep(time.Until(due) - time.Second) // the bots are up and sweeping before anything is due
	before := statements(dbs)
	deadline := time.Now().Add(30*time.Minute + time.Duration(n)*time.Millisecond)
	for tg.TotalBotMessages() < n+dailies && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // a few more sweeps: nothing fires twice
	after := statements(dbs)
	tasks := rep.tally(tg, due)
	daily := 0
	for chat := range dailies {
		daily += len(tg.BotMessages(int64(dailyChat0 + chat + 1)))
	}
	for _, l := range logs {
		rep.BySweep = append(rep.BySweep, strings.Count(l.String(), "reminder sent"))
	}
	if rep.Sent+daily > 0 {
		rep.Statements = float64(after-before) / float64(rep.Sent+daily)
	}
	if rep.Sent != n || rep.Duplicates != 0 || tasks != n {
		return rep, fmt.Errorf("%d reminders sent for %d tasks, %d twice; want each of %d once", rep.Sent, tasks, rep.Duplicates, n)
	}
	if daily != dailies {
		return rep, fmt.Errorf("%d daily review messages in %d chats, want one each", daily, dailies)
	}
	return rep, firstErr(r)
}

// reminderDSN is where the reminder bench keeps its data: a schema of its
// own on PostgreSQL, a fresh SQLite file otherwise, which only one
// replica can use.
func reminderDSN(r *reporter, dsn string, replicas int) (string, error) {
	if storage.IsPostgres(dsn) {
		return freshSchema(r, dsn)
	}
	if replicas > 1 {
		return "", fmt.Errorf("one process uses a SQLite file at a time: -replicas must be 1 without -db postgres://…")
	}
	dir, err := os.MkdirTemp("", "nodbench")
	if err != nil {
		return "", err
	}
	r.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "nod.db"), nil
}

// startReplicas starts a bot on each of dbs, with Telegram's rate limits
// lifted, and returns what each logs.
func startReplicas(r *reporter, dbs []*storage.DB, tgURL, llmURL string, log *slog.Logger) ([]*fixtures.LogBuffer, error) {
	unlimited := bot.Limits{PerChat: 1e6, PerChatBurst: 1e6, PerGroup: 1e8, Global: 1e6}
	var logs []*fixtures.LogBuffer
	for _, db := range dbs {
		lb := &fixtures.LogBuffer{}
		logs = append(logs, lb)
		c := confirm.New(confirm.Deps{Decisions: db.ChangeSets(), Tasks: db.Tasks(), Editor: db.Tasks(), Undos: db.Undo(), Breaker: db.Settings(), Rules: db.Rules(), Deletions: db.Deletions(), Replies: db.ChangeSets(), Words: answer.NewReader(formatting.AnswerWords())}, time.Now, log, nil)
		ag := agent.New(agent.Options{BaseURL: llmURL, Model: agentModel, Lexicon: formatting.Words}, agent.Deps{Tasks: db.Tasks(), Editor: db.Tasks(), Settings: db.Settings(), Conversation: db.Conversation(), Proposals: db.ChangeSets(), Memory: db.ChangeSets(), Undone: db.Undo(), Rulebook: db.Rules()}, time.Now, log)
		blog := slog.New(slog.NewTextHandler(lb, nil))
		sw := sweep.New(sweep.Deps{Expiry: db.ChangeSets(), Deletions: db.Deletions(), Trash: db.Tasks(), Buttons: db.Messages(), Updates: db.Outbox(), Outbox: db.Outbox(), Schedule: db.Schedule(), Tasks: db.Tasks()}, sweep.Options{}, time.Now, blog)
		b := bot.New(bot.Options{Token: telegramtest.Token, APIURL: tgURL, PollTimeout: 5 * time.Second, Limits: unlimited, SweepInterval: 100 * time.Millisecond},
			bot.Deps{Updates: db.Outbox(), Tasks: db.Tasks(), Audit: db.Audit(), Sets: db.ChangeSets(), Undos: db.Undo(), Chats: db.Settings(), Rulebook: db.Rules(),
				Conversation: db.Conversation(), Messages: db.Messages(), Buttons: db.Messages(), Deletions: db.Deletions(), Answers: c, Keeper: db.ChangeSets(), Outbox: db.Outbox(), Sweep: sw,
				Turner: ag, Decider: c, Mender: c, Changer: c, Rules: c, Days: db.Schedule(), Reminders: c.Taps()},
			time.Now, blog)
		if err := b.Start(context.Background()); err != nil {
			return nil, err
		}
		r.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			b.Stop(ctx)
		})
	}
	return logs, nil
}

// statements sums the statements dbs ran so far.
func statements(dbs []*storage.DB) int64 {
	var n int64
	for _, db := range dbs {
		s, _ := db.Work()
		n += s
	}
	return n
}

// tally counts the reminders sent and sent twice, with their delays
// after due, and returns how many tasks they were for.
func (rep *reminders) tally(tg *telegramtest.Server, due time.Time) int {
	seen := map[string]bool{}
	var delays []time.Duration
	for chat := range reminderChats {
		for _, m := range tg.BotMessages(int64(1_000_000 + chat)) {
			rep.Sent++
			if seen[m.Text] {
				rep.Duplicates++
			}
			seen[m.Text] = true
			delays = append(delays, m.Sent.Sub(due))
			rep.All = max(rep.All, m.Sent.Sub(due))
		}
	}
	rep.P50, rep.P99 = percentile(delays, 50), percentile(delays, 99)
	if rep.All > 0 {
		rep.PerSecond = float64(rep.Sent) / rep.All.Seconds()
	}
	return len(seen)
}

// dailyChat0 is the chat before the first with a daily review due.
const dailyChat0 = 2_000_000

// seedReminders inserts n tasks with a reminder at due and n without,
// over reminderChats chats, and dailies chats with a daily review due
// then, in a few statements: a person's tasks arrive one by one, a
// bench's all at once.
func seedReminders(dsn string, n, dailies int, due time.Time) error {
	driver, series := "sqlite", `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < %d) `
	from := "g"
	if storage.IsPostgres(dsn) {
		driver, series, from = "pgx", "", fmt.Sprintf("generate_series(1, %d) AS g(x)", 2*n)
	} else {
		series = fmt.Sprintf(series, 2*n)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	now := time.Now().UnixMicro()
	for chat := range dailies {
		_, err := db.Exec(`INSERT INTO chat_settings (chat_id, daily_at, daily_quiet, daily_due, updated_at) VALUES ($1, $2, 0, CAST($3 AS BIGINT), CAST($4 AS BIGINT))`,
			int64(dailyChat0+chat+1), due.UTC().Format("15:04"), due.UnixMicro(), now)
		if err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	_, err = db.Exec(series+`INSERT INTO tasks (id, chat_id, title, description, status, priority, labels, created_at, updated_at, remind_at, remind_due)
		SELECT 'R' || x, 1000000 + x % `+fmt.Sprint(reminderChats)+`, 'Reminder ' || x, '', 'OPEN', 'P2', '[]', CAST($1 AS BIGINT), CAST($1 AS BIGINT),
			CASE WHEN x <= $2 THEN CAST($3 AS BIGINT) END, CASE WHEN x <= $2 THEN CAST($3 AS BIGINT) END FROM `+from, now, n, due.UnixMicro())
	return err
}

func printReminders(w io.Writer, rep reminders) {
	fmt.Fprintf(w, "reminders on %s: %d due in the same minute among %d tasks, and %d daily reviews, %d replica(s)\n", rep.Database, rep.N, rep.Tasks, rep.Dailies, rep.Replicas)
	fmt.Fprintf(w, "  sent %d, twice %d; per replica %v\n", rep.Sent, rep.Duplicates, rep.BySweep)
	fmt.Fprintf(w, "  due → sent: p50 %s, p99 %s, last %s\n", ms(rep.P50), ms(rep.P99), ms(rep.All))
	fmt.Fprintf(w, "  %.0f reminders claimed and sent a second; %.2f database statements an item due\n", rep.PerSecond, rep.Statements)
}
