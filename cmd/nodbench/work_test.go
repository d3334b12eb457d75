package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage/storagetest"
)

// work is what one operation cost the database.
type work struct{ statements, transactions int64 }

// measureWork runs op on nod started fresh on dialect's database and
// returns the statements and transactions it ran, counted until nod has
// stopped (so that nothing of op is still in flight). prepare runs first,
// uncounted.
func measureWork(t *testing.T, dialect string, prepare func(e *env), op func(e *env)) work {
	t.Helper()
	r := &reporter{}
	t.Cleanup(r.close)
	dsn := ""
	if dialect == "postgres" {
		dsn = storagetest.PostgresURL()
	}
	e, err := start(r, dsn, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	prepare(e)
	e.tg.Wait("nod to settle", e.tg.Wire().Idle)
	settled(t, e)
	s0, t0 := e.db.Work()
	op(e)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.bot.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	s1, t1 := e.db.Work()
	if err := firstErr(r); err != nil {
		t.Fatal(err)
	}
	return work{s1 - s0, t1 - t0}
}

// settled waits until nothing of nod's is in flight: the sweep that starts
// with nod has run, and every message and press is handled, writes after
// its last reply included. It watches the bot's own metrics rather than
// waiting for the database to fall quiet, which a slow machine can fake.
func settled(t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		sweeps, messages, presses := metric(t, e, "nod_sweeps_total"), metric(t, e, "nod_messages_in_flight"), metric(t, e, "nod_presses_in_flight")
		if sweeps >= 1 && messages == 0 && presses == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nod did not settle: %v sweeps, %v messages and %v presses in flight", sweeps, messages, presses)
		}
		time.Sleep(time.Millisecond)
	}
}

// metric reads a counter or gauge of the bot's.
func metric(t *testing.T, e *env, name string) float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// A read-only turn, a confirm tap and a confirm-all run a bounded number
// of statements, on both databases, counted end to end (bot, agent and
// storage): the bounds keep redundant reads and writes out.
func TestWorkPerOperation(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			turn := measureWork(t, dialect, func(e *env) {
				seedLogin(e)
				e.llm.Handle(readOnlyLLM)
				e.tg.SendText(benchChat, 42, "hi")
				e.tg.WaitBotMessages(benchChat, 1)
			}, func(e *env) {
				e.tg.SendText(benchChat, 42, "what's on my list?")
				e.tg.WaitBotMessages(benchChat, 2)
			})
			tap := measureWork(t, dialect, func(e *env) {
				proposeItems(e, 1)
			}, func(e *env) {
				tapSet(e, "✓ 1")
			})
			const k = 10
			all := measureWork(t, dialect, func(e *env) {
				proposeItems(e, k)
			}, func(e *env) {
				tapSet(e, "✓ All")
			})
			// The same with 10,000 tasks in the chat: the prompt's tasks
			// and a page of list_tasks are read an index range at a time.
			const many = 10000
			bigTurn := measureWork(t, dialect, func(e *env) {
				seedSize(e, benchChat, many)
				seedLogin(e)
				e.llm.Handle(readOnlyLLM)
				e.tg.SendText(benchChat, 42, "hi")
				e.tg.WaitBotMessages(benchChat, 1)
			}, func(e *env) {
				e.tg.SendText(benchChat, 42, "what's on my list?")
				e.tg.WaitBotMessages(benchChat, 2)
			})
			bigTap := measureWork(t, dialect, func(e *env) {
				seedSize(e, benchChat, many)
				proposeItems(e, 1)
			}, func(e *env) {
				tapSet(e, "✓ 1")
			})
			// /today with a task due today and a reminder of today's, and
			// with those beside the 10,000, overdue, due today and
			// reminded today among them.
			today := measureWork(t, dialect, seedToday, func(e *env) { askToday(e, 1) })
			bigToday := measureWork(t, dialect, func(e *env) {
				seedSize(e, benchChat, many)
				seedToday(e)
			}, func(e *env) { askToday(e, 1) })
			t.Logf("read-only turn %+v, tap %+v, confirm-all of %d %+v, /today %+v; with %d tasks: turn %+v, tap %+v, /today %+v", turn, tap, k, all, today, many, bigTurn, bigTap, bigToday)
			// Bounds with a statement or two to spare for PostgreSQL's locks:
			// a turn reads settings, history, events, the prompt's tasks
			// (and their checklists), open sets and decisions once each
			// (on SQLite, the chat's version instead of all but the
			// history and events, when the chat's tasks, proposals and
			// decisions did not change since its last turn, as here)
			// and writes in two transactions (the person's words kept
			// before the model is asked, so that a crash loses none, with
			// the update's mark; and the turn, whose audit row follows the
			// chain head kept from the turn before, unread). On PostgreSQL
			// the words go with the opening's reads, in one transaction,
			// behind two checks (the settings the process kept and routed
			// the message by still stand, no events came), which stand in
			// for the settings' read; a tap reads the chat's
			// settings with the buttons its message was sent with, then
			// decides in one transaction that marks the update handled,
			// reads the set (with its items and the chat's audit chain
			// head, in one statement) and its task (with its checklist and
			// its card's message, in one) and records the buttons its edit
			// adds (Undo n); once the edit landed it marks it delivered in
			// one statement that finds out whether another tap decided
			// meanwhile. With 10,000 tasks, list_tasks reads
			// its page (rows and checklists) instead of answering from the
			// prompt's listing, which no longer holds every task; nothing
			// else grows. /today reads settings, counts the tasks due, reads
			// a page of them and of the day's reminders (with checklists)
			// and the day's ✓ Done taps on repeating reminders, marks the
			// update and records its message's buttons.
			turnMost := work{16, 2}
			if dialect == "sqlite" {
				turnMost = work{10, 2}
			}
			for _, c := range []struct {
				what      string
				got, most work
			}{
				{"read-only turn", turn, turnMost},
				{"confirm tap", tap, work{16, 2}},
				{fmt.Sprintf("confirm-all of %d items", k), all, work{6*k + 1, 2}},
				{fmt.Sprintf("read-only turn with %d tasks", many), bigTurn, work{turnMost.statements + 2, 2}},
				{fmt.Sprintf("confirm tap with %d tasks", many), bigTap, work{16, 2}},
				{"/today", today, work{9, 2}},
				{fmt.Sprintf("/today with %d tasks", many), bigToday, work{9, 2}},
			} {
				if c.got.statements > c.most.statements || c.got.transactions > c.most.transactions {
					t.Errorf("%s ran %d statements in %d write transactions, want at most %d in %d",
						c.what, c.got.statements, c.got.transactions, c.most.statements, c.most.transactions)
				}
			}
			if bigTurn.statements > turn.statements+2 || bigTap.statements > tap.statements || bigToday.statements > today.statements {
				t.Errorf("with %d tasks a turn ran %d statements (%d with 2 tasks), a tap %d (%d), /today %d (%d)", many, bigTurn.statements, turn.statements, bigTap.statements, tap.statements, bigToday.statements, today.statements)
			}
		})
	}
}

// seedToday gives the bench's chat a task due today, with a checklist,
// and one with a reminder earlier today (which has fired: none fires
// while /today is measured).
func seedToday(e *env) {
	now := time.Now().UTC()
	at := now.Add(-now.Sub(now.Truncate(24*time.Hour)) / 2)
	e.seed(benchChat, nod.Task{ID: "T3", Title: "Send the invoice", DueDate: now.Format(nod.DateLayout),
		Checklist: []nod.ChecklistItem{{ID: "c3", Title: "Check the hours", CheckedBy: nod.ActorUser}}})
	e.seed(benchChat, nod.Task{ID: "T4", Title: "Call the dentist", RemindAt: &at})
}

// askToday sends /today to the bench's chat and waits for its answer,
// the chat's n-th message from nod.
func askToday(e *env, n int) {
	e.tg.SendText(benchChat, 42, "/today")
	e.tg.WaitBotMessages(benchChat, n)
}

// proposeItems makes the agent propose n checklist items of T2 in one
// set, all needing confirmation.
func proposeItems(e *env, n int) {
	seedLogin(e)
	var items []map[string]string
	for i := range n {
		items = append(items, map[string]string{"title": fmt.Sprintf("Step %d", i+1)})
	}
	e.llm.Handle(func(q openaitest.Request) openaitest.Response {
		if q.Model == clfModel {
			return openaitest.Text(`{"actions":[]}`)
		}
		if len(q.ToolResults()) == 0 {
			return calls(call("add_multiple_checklist_items", map[string]any{"task_id": "T2", "items": items}))
		}
		return openaitest.Text("Here is a plan.")
	})
	e.tg.SendText(benchChat, 42, "plan the launch")
	e.tg.WaitBotMessages(benchChat, 2)
}

// tapSet taps a button of the chat's latest message and waits for the
// message's edit.
func tapSet(e *env, button string) {
	msgs := e.tg.BotMessages(benchChat)
	set := msgs[len(msgs)-1]
	e.tg.WaitAnswer(e.tg.Tap(benchChat, 42, set.ID, button))
	e.tg.WaitMessage(benchChat, set.ID, "the set to be edited", func(m telegramtest.Message) bool { return m.Edits > 0 })
}
