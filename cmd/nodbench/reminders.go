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
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/bot"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/repeat"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/sweep"
)

// reminders is what the reminder bench measured: n reminders due in the
// same minute, among as many tasks without one, and daily reviews due in
// as many chats, fired by replicas nods sweeping one database; and,
// with -repeating, repeating reminders due an hour later.
type reminders struct {
	N        int    `json:"reminders"`
	Dailies  int    `json:"daily_reviews"`
	Tasks    int    `json:"tasks"`
	Replicas int    `json:"replicas"`
	Database string `json:"database"`
	// Statements is per item due, reminder or daily review: its claim,
	// the daily review's turn, the message and its delivery; the sweeps
	// that found nothing due meanwhile are left out (sweepWork.idle).
	fired
	BySweep   []int      `json:"sent_by_replica"`
	Repeating *repeating `json:"repeating,omitempty"`
}

// fired is what one stage of the bench sent: its reminders, each due
// at the same moment, and the statements it ran per item due.
type fired struct {
	Sent       int           `json:"sent"`
	Duplicates int           `json:"duplicates"`
	P50        time.Duration `json:"due_to_sent_p50_ns"`
	P99        time.Duration `json:"due_to_sent_p99_ns"`
	All        time.Duration `json:"due_to_last_sent_ns"`
	PerSecond  float64       `json:"reminders_per_second"`
	Statements float64       `json:"statements_per_due_item"`
	// RoundTrips is per item due too, on PostgreSQL: a pipeline's
	// statements go out in one.
	RoundTrips float64 `json:"round_trips_per_due_item,omitempty"`
}

// repeating is what N repeating reminders cost, their rules taken in
// turn from Rules: each fired at its first occurrence, then again once
// the clock moved on a day to its next, which claiming it computed.
type repeating struct {
	N     int      `json:"reminders"`
	Rules []string `json:"rules"`
	First fired    `json:"first"`
	Next  fired    `json:"next"`
}

// repeatRules are the repeating reminders' rules. The bench's clock
// starts on a Monday, so that each comes again on Tuesday: the move to
// the next occurrence is a day for all of them, and the last one ends
// there.
var repeatRules = []string{"FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "FREQ=WEEKLY;BYDAY=MO,TU,TH", "FREQ=DAILY;COUNT=2"}

// chatsOf spreads the bench's reminders over this many chats.
const reminderChats = 1000

// benchClock is the clock the reminder bench gives nod: the machine's,
// moved on by an offset the bench sets, so that a reminder's next
// occurrence a day later comes in a second.
type benchClock struct{ offset atomic.Int64 }

func (c *benchClock) now() time.Time { return time.Now().Add(c.off()) }

func (c *benchClock) off() time.Duration { return time.Duration(c.offset.Load()) }

// set makes the clock read t now.
func (c *benchClock) set(t time.Time) { c.offset.Store(int64(time.Until(t))) }

// reminderBench seeds n tasks with a reminder due on a Monday at 09:00
// UTC of the bench's clock and n without, repeating tasks with a
// repeating reminder due at 10:00, and dailies chats with a daily review
// due at 09:00; starts replicas bots on the database with Telegram's
// rate limits lifted, five seconds before 09:00, and waits until every
// reminder and review went out. Then it moves the clock to 10:00, and
// then to Tuesday 10:00, and waits for the repeating reminders each
// time.
func reminderBench(dsn string, n, dailies, repeats, replicas int) (reminders, error) {
	r := &reporter{}
	defer r.close()
	rep := reminders{N: n, Dailies: dailies, Tasks: 2*n + repeats, Replicas: replicas, Database: "sqlite"}
	if storage.IsPostgres(dsn) {
		rep.Database = "postgres"
	}
	dsn, err := reminderDSN(r, dsn, replicas)
	if err != nil {
		return rep, err
	}
	clock := &benchClock{}
	due := monday(time.Now()).Add(9 * time.Hour)
	clock.set(due.Add(-5 * time.Second))
	log := slog.New(slog.DiscardHandler)
	tg, llm := telegramtest.New(r), openaitest.New(r)
	tg.Strict = false
	llm.Handle(func(openaitest.Request) openaitest.Response { return openaitest.Text("Nothing needs you today.") })
	var dbs []*storage.DB
	for range replicas {
		db := storage.New(storage.Options{DSN: dsn}, clock.now, log)
		if err := db.Open(context.Background()); err != nil {
			return rep, err
		}
		r.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	if err := seedReminders(dsn, n, dailies, due, clock.now()); err != nil {
		return rep, fmt.Errorf("seed: %w", err)
	}
	first := due.Add(time.Hour)
	if repeats > 0 {
		if err := seedRepeating(dsn, repeats, first, clock.now()); err != nil {
			return rep, fmt.Errorf("seed: %w", err)
		}
	}
	// Seeding takes its time (seconds under the race detector): the
	// clock starts again three seconds before due, so that the bots are
	// up and sweeping before anything is due, and what a sweep that finds
	// nothing costs is measured then.
	clock.set(due.Add(-3 * time.Second))
	logs, w, err := startReplicas(r, dbs, tg.URL, llm.URL, clock.now, log)
	if err != nil {
		return rep, err
	}
	time.Sleep(time.Second / 2)
	w.idle(due.Sub(clock.now()) - time.Second)
	var tasks int
	rep.fired, tasks = fireStage(tg, w, clock, due, n+dailies)
	for _, l := range logs {
		rep.BySweep = append(rep.BySweep, strings.Count(l.String(), "reminder sent"))
	}
	daily := 0
	for chat := range dailies {
		daily += len(tg.BotMessages(int64(dailyChat0 + chat + 1)))
	}
	if rep.Sent != n || rep.Duplicates != 0 || tasks != n {
		return rep, fmt.Errorf("%d reminders sent for %d tasks, %d twice; want each of %d once", rep.Sent, tasks, rep.Duplicates, n)
	}
	if daily != dailies {
		return rep, fmt.Errorf("%d daily review messages in %d chats, want one each", daily, dailies)
	}
	if repeats > 0 {
		rep.Repeating = &repeating{N: repeats, Rules: repeatRules}
		if err := rep.Repeating.run(tg, w, clock, dsn, first); err != nil {
			return rep, err
		}
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

// startReplicas starts a bot on each of dbs, on the clock now, with Telegram's rate limits
// lifted, and returns what each logs and the work they do.
func startReplicas(r *reporter, dbs []*storage.DB, tgURL, llmURL string, now func() time.Time, log *slog.Logger) ([]*fixtures.LogBuffer, *sweepWork, error) {
	unlimited := bot.Limits{PerChat: 1e6, PerChatBurst: 1e6, PerGroup: 1e8, Global: 1e6}
	var logs []*fixtures.LogBuffer
	w := &sweepWork{dbs: dbs}
	for _, db := range dbs {
		reg := prometheus.NewRegistry()
		w.regs = append(w.regs, reg)
		lb := &fixtures.LogBuffer{}
		logs = append(logs, lb)
		c := confirm.New(confirm.Deps{Decisions: db.ChangeSets(), Tasks: db.Tasks(), Editor: db.Tasks(), Undos: db.Undo(), Breaker: db.Settings(), Rules: db.Rules(), Deletions: db.Deletions(), Replies: db.ChangeSets(), Words: answer.NewReader(formatting.AnswerWords())}, now, log, nil)
		ag := agent.New(agent.Options{BaseURL: llmURL, Model: agentModel, Lexicon: formatting.Words}, agent.Deps{Tasks: db.Tasks(), Editor: db.Tasks(), Settings: db.Settings(), Conversation: db.Conversation(), Proposals: db.ChangeSets(), Memory: db.ChangeSets(), Undone: db.Undo(), Rulebook: db.Rules()}, now, log)
		blog := slog.New(slog.NewTextHandler(lb, nil))
		sw := sweep.New(sweep.Deps{Expiry: db.ChangeSets(), Deletions: db.Deletions(), Trash: db.Tasks(), Buttons: db.Messages(), Updates: db.Outbox(), Outbox: db.Outbox(), Schedule: db.Schedule(), Tasks: db.Tasks()}, sweep.Options{}, now, blog)
		b := bot.New(bot.Options{Token: telegramtest.Token, APIURL: tgURL, PollTimeout: 5 * time.Second, Limits: unlimited, SweepInterval: 100 * time.Millisecond, Metrics: reg},
			bot.Deps{Updates: db.Outbox(), Tasks: db.Tasks(), Audit: db.Audit(), Sets: db.ChangeSets(), Undos: db.Undo(), Chats: db.Settings(), Rulebook: db.Rules(),
				Conversation: db.Conversation(), Messages: db.Messages(), Buttons: db.Messages(), Deletions: db.Deletions(), Answers: c, Keeper: db.ChangeSets(), Outbox: db.Outbox(), Sweep: sw,
				Turner: ag, Decider: c, Mender: c, Changer: c, Rules: c, Days: db.Schedule(), Reminders: c.Taps()},
			now, blog)
		if err := b.Start(context.Background()); err != nil {
			return nil, nil, err
		}
		r.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			b.Stop(ctx)
		})
	}
	return logs, w, nil
}

// sweepWork is what the replicas' databases ran and their bots swept.
type sweepWork struct {
	dbs  []*storage.DB
	regs []*prometheus.Registry
	// perSweep is the statements and round trips a sweep that found
	// nothing due costs: a stage runs more sweeps the longer it takes,
	// which a figure per item due leaves out.
	perSweep struct{ stmts, trips float64 }
}

// count is the statements run so far, their round trips to PostgreSQL,
// and the sweeps run.
type count struct{ stmts, trips, sweeps float64 }

func (w *sweepWork) now() count {
	var c count
	for _, db := range w.dbs {
		s, _ := db.Work()
		c.stmts, c.trips = c.stmts+float64(s), c.trips+float64(db.RoundTrips())
	}
	for _, reg := range w.regs {
		mfs, _ := reg.Gather()
		for _, mf := range mfs {
			if mf.GetName() == "nod_sweeps_total" {
				for _, m := range mf.GetMetric() {
					c.sweeps += m.GetCounter().GetValue()
				}
			}
		}
	}
	return c
}

// idle measures what a sweep costs while nothing is due, over d.
func (w *sweepWork) idle(d time.Duration) {
	before := w.now()
	time.Sleep(d)
	after := w.now()
	if n := after.sweeps - before.sweeps; n > 0 {
		w.perSweep.stmts, w.perSweep.trips = (after.stmts-before.stmts)/n, (after.trips-before.trips)/n
	}
}

// per is the statements and round trips from before to after for each
// of k items, the idle sweeps meanwhile left out.
func (w *sweepWork) per(before, after count, k int) (stmts, trips float64) {
	sweeps := after.sweeps - before.sweeps
	stmts = (after.stmts - before.stmts - sweeps*w.perSweep.stmts) / float64(k)
	trips = (after.trips - before.trips - sweeps*w.perSweep.trips) / float64(k)
	return stmts, trips
}

// fireStage waits, from a second before due on clock, until want more
// messages went out, and half a second more so that anything that
// fired twice shows; it returns what went out to the reminder chats
// meanwhile, with the statements run per message, and how many tasks
// the reminders were for.
func fireStage(tg *telegramtest.Server, w *sweepWork, clock *benchClock, due time.Time, want int) (fired, int) {
	from := make([]int, reminderChats)
	for chat := range reminderChats {
		from[chat] = len(tg.BotMessages(int64(1_000_000 + chat)))
	}
	total := tg.TotalBotMessages()
	before := w.now()
	deadline := time.Now().Add(30*time.Minute + time.Duration(want)*time.Millisecond)
	for tg.TotalBotMessages()-total < want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	after := w.now()
	f, tasks := tally(tg, from, due, clock.off())
	if k := tg.TotalBotMessages() - total; k > 0 {
		f.Statements, f.RoundTrips = w.per(before, after, k)
	}
	return f, tasks
}

// tally counts the reminders sent after the first from[chat] messages
// of each reminder chat, and those sent twice, with their delays after
// due on a clock off ahead of the machine's; it returns them and how
// many tasks they were for.
func tally(tg *telegramtest.Server, from []int, due time.Time, off time.Duration) (fired, int) {
	var f fired
	seen := map[string]bool{}
	var delays []time.Duration
	for chat := range reminderChats {
		for _, m := range tg.BotMessages(int64(1_000_000 + chat))[from[chat]:] {
			f.Sent++
			if seen[m.Text] {
				f.Duplicates++
			}
			seen[m.Text] = true
			d := m.Sent.Add(off).Sub(due)
			delays = append(delays, d)
			f.All = max(f.All, d)
		}
	}
	f.P50, f.P99 = percentile(delays, 50), percentile(delays, 99)
	if f.All > 0 {
		f.PerSecond = float64(f.Sent) / f.All.Seconds()
	}
	return f, len(seen)
}

// run fires the repeating reminders due at first: it moves clock to a
// second before first, waits for each to fire once, then moves it to a
// second before their next occurrence and waits again, and checks that
// each is due next where its rule says.
func (rp *repeating) run(tg *telegramtest.Server, w *sweepWork, clock *benchClock, dsn string, first time.Time) error {
	next := first.AddDate(0, 0, 1)
	// The daily reviews had their day: on the way to the next occurrence
	// they would come again.
	if err := execOn(dsn, `UPDATE chat_settings SET daily_due = NULL`); err != nil {
		return err
	}
	for i, stage := range []struct {
		at  time.Time
		out *fired
	}{{first, &rp.First}, {next, &rp.Next}} {
		clock.set(stage.at.Add(-time.Second))
		var tasks int
		*stage.out, tasks = fireStage(tg, w, clock, stage.at, rp.N)
		if f := *stage.out; f.Sent != rp.N || f.Duplicates != 0 || tasks != rp.N {
			return fmt.Errorf("occurrence %d: %d repeating reminders sent for %d tasks, %d twice; want each of %d once", i+1, f.Sent, tasks, f.Duplicates, rp.N)
		}
	}
	return checkRepeats(dsn, next)
}

// checkRepeats checks that each repeating reminder fired last at at, and
// is due next at its rule's first occurrence after it (none for a rule
// that ended).
func checkRepeats(dsn string, at time.Time) error {
	db, err := openSeed(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, remind_at, remind_due, repeat FROM tasks WHERE repeat <> ''`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   string
			last int64
			due  sql.NullInt64
			rule string
		)
		if err := rows.Scan(&id, &last, &due, &rule); err != nil {
			return err
		}
		r, err := repeat.Read(rule)
		if err != nil {
			return fmt.Errorf("task %s: %w", id, err)
		}
		want, ok := r.Next(time.UTC, at)
		switch {
		case last != at.UnixMicro():
			return fmt.Errorf("task %s (%s) fired last at %s, want %s", id, r.RRULE(), time.UnixMicro(last).UTC(), at)
		case ok != due.Valid || ok && due.Int64 != want.UnixMicro():
			return fmt.Errorf("task %s (%s) is due next at %v, want %s (%v)", id, r.RRULE(), due, want, ok)
		}
	}
	return rows.Err()
}

// execOn runs stmt on the database at dsn.
func execOn(dsn, stmt string) error {
	db, err := openSeed(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(stmt)
	return err
}

// monday is the Monday after t, at midnight UTC.
func monday(t time.Time) time.Time {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, 7-(int(d.Weekday())+6)%7)
}

// dailyChat0 is the chat before the first with a daily review due.
const dailyChat0 = 2_000_000

// seedReminders inserts n tasks with a reminder at due and n without,
// over reminderChats chats, and dailies chats with a daily review due
// then, in a few statements, at now: a person's tasks arrive one by one,
// a bench's all at once.
func seedReminders(dsn string, n, dailies int, due, now time.Time) error {
	db, err := openSeed(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for chat := range dailies {
		_, err := db.Exec(`INSERT INTO chat_settings (chat_id, daily_at, daily_quiet, daily_due, updated_at) VALUES ($1, $2, 0, CAST($3 AS BIGINT), CAST($4 AS BIGINT))`,
			int64(dailyChat0+chat+1), due.UTC().Format("15:04"), due.UnixMicro(), now.UnixMicro())
		if err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	with, from := series(dsn, 2*n)
	_, err = db.Exec(with+`INSERT INTO tasks (id, chat_id, title, description, status, priority, labels, created_at, updated_at, remind_at, remind_due)
		SELECT 'R' || x, 1000000 + x % `+fmt.Sprint(reminderChats)+`, 'Reminder ' || x, '', 'OPEN', 'P2', '[]', CAST($1 AS BIGINT), CAST($1 AS BIGINT),
			CASE WHEN x <= $2 THEN CAST($3 AS BIGINT) END, CASE WHEN x <= $2 THEN CAST($3 AS BIGINT) END FROM `+from, now.UnixMicro(), n, due.UnixMicro())
	return err
}

// seedRepeating inserts n tasks with a repeating reminder first due at
// first, over reminderChats chats, their rules taken from repeatRules in
// turn, read from first's wall clock in UTC (the chats set no zone).
func seedRepeating(dsn string, n int, first, now time.Time) error {
	db, err := openSeed(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	with, from := series(dsn, n)
	for i, rrule := range repeatRules {
		r, err := repeat.Parse(rrule)
		if err != nil {
			return err
		}
		_, err = db.Exec(with+`INSERT INTO tasks (id, chat_id, title, description, status, priority, labels, created_at, updated_at, remind_at, remind_due, repeat)
			SELECT 'P' || x, 1000000 + x % `+fmt.Sprint(reminderChats)+`, 'Repeating ' || x, '', 'OPEN', 'P2', '[]', CAST($1 AS BIGINT), CAST($1 AS BIGINT),
				CAST($2 AS BIGINT), CAST($2 AS BIGINT), $3 FROM `+from+fmt.Sprintf(` WHERE x %% %d = %d`, len(repeatRules), i),
			now.UnixMicro(), first.UnixMicro(), r.At(first.UTC()).String())
		if err != nil {
			return err
		}
	}
	return nil
}

// series is the rows 1…n as x, for an INSERT … SELECT: the WITH clause
// that goes before the INSERT (SQLite) and what to select from.
func series(dsn string, n int) (with, from string) {
	if storage.IsPostgres(dsn) {
		return "", fmt.Sprintf("generate_series(1, %d) AS g(x)", n)
	}
	return fmt.Sprintf(`WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < %d) `, n), "g"
}

// openSeed opens the bench's database beside the replicas' own
// connections: a SQLite file waits for a write lock they hold, as theirs
// do, rather than failing at once with SQLITE_BUSY.
func openSeed(dsn string) (*sql.DB, error) {
	if storage.IsPostgres(dsn) {
		return sql.Open("pgx", dsn)
	}
	return sql.Open("sqlite", dsn+"?_pragma=busy_timeout(10000)")
}

func printReminders(w io.Writer, rep reminders) {
	fmt.Fprintf(w, "reminders on %s: %d due in the same minute among %d tasks, and %d daily reviews, %d replica(s)\n", rep.Database, rep.N, rep.Tasks, rep.Dailies, rep.Replicas)
	fmt.Fprintf(w, "  sent %d, twice %d; per replica %v\n", rep.Sent, rep.Duplicates, rep.BySweep)
	fmt.Fprintf(w, "  due → sent: p50 %s, p99 %s, last %s\n", ms(rep.P50), ms(rep.P99), ms(rep.All))
	fmt.Fprintf(w, "  %.0f reminders claimed and sent a second; %.2f database statements an item due\n", rep.PerSecond, rep.Statements)
	if rp := rep.Repeating; rp != nil {
		fmt.Fprintf(w, "repeating reminders: %d due at once, rules %s\n", rp.N, strings.Join(rp.Rules, " | "))
		for _, s := range []struct {
			what string
			f    fired
		}{{"first occurrence", rp.First}, {"next occurrence, a day on", rp.Next}} {
			fmt.Fprintf(w, "  %s: sent %d, twice %d; due → sent p50 %s, p99 %s, last %s; %.0f a second; %.2f statements a reminder due\n",
				s.what, s.f.Sent, s.f.Duplicates, ms(s.f.P50), ms(s.f.P99), ms(s.f.All), s.f.PerSecond, s.f.Statements)
		}
	}
}
