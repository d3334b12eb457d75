package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// sized is what a read-only turn, a confirm tap and /today cost with
// Tasks tasks in the chat.
type sized struct {
	Tasks int  `json:"tasks"`
	Turns load `json:"turns"`
	Taps  load `json:"confirm_taps"`
	Today load `json:"today"`
	// Statements run per operation (bot, agent and storage), and bytes of
	// the requests sent to the agent model per turn.
	TurnStatements  float64 `json:"statements_per_turn"`
	TapStatements   float64 `json:"statements_per_tap"`
	TodayStatements float64 `json:"statements_per_today"`
	TurnModelBytes  float64 `json:"model_bytes_per_turn"`
}

// todayFull tasks fill /today's pages, so that the sizes compare its
// reads, not the length of its message.
const todayFull = 2 * 24

// seedSize stores size tasks in chat at once, shaped like a long-used
// list: a tenth done, some in progress, a sixth with due dates from two
// months back to two months ahead (half of them overdue, one in twenty
// due today), a fifth with a checklist, a fortieth with a reminder earlier
// today and as many with one in the weeks ahead. Today's reminders are
// past, so that none fires while the bench measures. The first todayFull
// tasks, open, fill /today's two pages (due and reminders) at every size.
func seedSize(e *env, chat nod.ChatID, size int) {
	now := time.Now().UTC()
	midnight := now.Truncate(24 * time.Hour)
	tasks := make([]nod.Task, size)
	for i := range tasks {
		t := nod.Task{ID: nod.TaskID(fmt.Sprintf("s%d-%d", chat, i)), ChatID: chat, Title: fmt.Sprintf("Task %d of a long list", i),
			Description: "Something to do, with a few words on why.", Status: nod.StatusOpen, Priority: nod.Priorities[i%4]}
		switch {
		case i < todayFull:
		case i%10 == 0:
			t.Status = nod.StatusDone
		case i%13 == 0:
			t.Status = nod.StatusInProgress
		}
		if i%6 == 0 {
			t.DueDate = now.AddDate(0, 0, i%120-60).Format(nod.DateLayout)
		}
		switch {
		case i < todayFull && i%2 == 0:
			t.DueDate = now.AddDate(0, 0, -(i/2)%2).Format(nod.DateLayout)
		case i < todayFull:
			at := midnight.Add(now.Sub(midnight) * time.Duration(i) / todayFull)
			t.RemindAt = &at
		case i%40 == 3:
			at := midnight.Add(now.Sub(midnight) * time.Duration(i%97) / 97)
			t.RemindAt = &at
		case i%40 == 23:
			at := now.AddDate(0, 0, 1+i%30)
			t.RemindAt = &at
		}
		if i%5 == 0 {
			t.Checklist = []nod.ChecklistItem{{ID: nod.ItemID(t.ID + "-a"), Title: "First step", Checked: true, CheckedBy: nod.ActorUser},
				{ID: nod.ItemID(t.ID + "-b"), Title: "Second step", CheckedBy: nod.ActorUser}}
		}
		t.CreatedAt, t.UpdatedAt = now, now
		tasks[i] = t
	}
	var err error
	labeled(partBench, func() { err = e.db.Tasks().ImportTasks(context.Background(), tasks) })
	if err != nil {
		e.r.Fatalf("seed %d tasks: %v", size, err)
	}
}

// sizeLoad measures read-only turns and confirm taps in chats of size
// tasks each: n chats at once, rounds times.
func sizeLoad(dsn string, size, n, rounds int) (sized, error) {
	out := sized{Tasks: size}
	r := &reporter{}
	defer r.close()
	e, err := start(r, dsn, n, 0)
	if err != nil {
		return out, err
	}
	chats := chatRange(0, n)
	for _, chat := range chats {
		seedSize(e, nod.ChatID(chat), size)
	}
	if err := sizeTurns(e, chats, rounds, &out); err != nil {
		return out, err
	}
	if err := sizeToday(e, chats, rounds, &out); err != nil {
		return out, err
	}
	sets, err := proposeSets(e, chats, rounds)
	if err != nil {
		return out, err
	}
	if err := sizeTaps(e, chats, rounds, sets, &out); err != nil {
		return out, err
	}
	return out, firstErr(r)
}

// sizeTurns measures read-only turns into out: list_tasks, then text.
func sizeTurns(e *env, chats []int64, rounds int, out *sized) error {
	e.llm.Handle(readOnlyLLM)
	reqs := len(e.llm.RequestsFor(agentModel))
	var err error
	out.Turns, out.TurnStatements, err = sizeRun(e, chats, rounds, "what's on my list?")
	if err != nil {
		return err
	}
	bytes := 0
	for _, q := range e.llm.RequestsFor(agentModel)[reqs:] {
		bytes += len(q.Raw)
	}
	out.TurnModelBytes = float64(bytes) / float64(len(chats)*rounds)
	return nil
}

// sizeToday measures /today into out: the person's command and nod's
// answer, no model.
func sizeToday(e *env, chats []int64, rounds int, out *sized) error {
	var err error
	out.Today, out.TodayStatements, err = sizeRun(e, chats, rounds, "/today")
	return err
}

// sizeRun sends text to each chat once a round, each round done when
// every chat has one answer more, and returns the load and the
// statements each message ran, counted once nod has settled.
func sizeRun(e *env, chats []int64, rounds int, text string) (load, float64, error) {
	e.tg.Wait("nod to settle", e.tg.Wire().Idle)
	settle(e)
	before := make(map[int64]int, len(chats))
	for _, chat := range chats {
		before[chat] = len(e.tg.BotMessages(chat))
	}
	s0, _ := e.db.Work()
	l, err := loadRun{chats: len(chats), rounds: rounds, conns: e.conns, round: func(r int) []time.Duration {
		return concurrently(chats, func(chat int64) { e.tg.SendText(chat, chat, text) },
			func(chat int64) bool { return len(e.tg.BotMessages(chat)) > before[chat]+r }, e.tg.Wait)
	}}.measure()
	if err != nil {
		return l, 0, err
	}
	e.tg.Wait("nod to settle", e.tg.Wire().Idle)
	settle(e)
	s1, _ := e.db.Work()
	return l, float64(s1-s0) / float64(len(chats)*rounds), nil
}

// proposeSets gives each chat rounds sets of one proposal, and returns
// the message ids of each chat's sets, in order.
func proposeSets(e *env, chats []int64, rounds int) (map[int64][]int, error) {
	var asked atomic.Int64
	e.llm.Handle(func(q openaitest.Request) openaitest.Response {
		if q.Model == clfModel {
			return openaitest.Text(`{"actions":[]}`)
		}
		if q.Messages[len(q.Messages)-1].Role != "tool" {
			// A title of its own: a proposal like a waiting one is dropped.
			title := fmt.Sprintf("Buy milk %d", asked.Add(1))
			return openaitest.Calls(openaitest.Call("c", "create_task", map[string]string{"title": title}))
		}
		return openaitest.Text("Add it?")
	})
	before := make(map[int64]int, len(chats))
	for _, chat := range chats {
		before[chat] = len(e.tg.BotMessages(chat))
	}
	for i := range rounds {
		for _, chat := range chats {
			e.tg.SendText(chat, chat, "add a task Buy milk")
		}
		e.tg.Wait("the sets", func() bool {
			for _, chat := range chats {
				if len(e.tg.BotMessages(chat)) < before[chat]+2*(i+1) {
					return false
				}
			}
			return true
		})
	}
	sets := make(map[int64][]int, len(chats))
	for _, chat := range chats {
		var ids []int
		for _, m := range e.tg.BotMessages(chat)[before[chat]:] {
			if _, ok := m.Button("✓ 1"); ok {
				ids = append(ids, m.ID)
			}
		}
		if len(ids) != rounds {
			return nil, fmt.Errorf("chat %d shows %d sets, want %d", chat, len(ids), rounds)
		}
		sets[chat] = ids
	}
	return sets, nil
}

// sizeTaps measures taps of ✓ 1 into out, on one of each chat's sets a
// round; what a tap does after its answer (the set's edit) counts too.
func sizeTaps(e *env, chats []int64, rounds int, sets map[int64][]int, out *sized) error {
	n := len(chats)
	e.tg.Wait("nod to settle", e.tg.Wire().Idle)
	settle(e)
	s0, _ := e.db.Work()
	var presses sync.Map // chat and round → callback query id
	var err error
	out.Taps, err = loadRun{chats: n, rounds: rounds, conns: e.conns, round: func(r int) []time.Duration {
		return concurrently(chats, func(chat int64) {
			id := sets[chat][r]
			m, _ := e.tg.Message(chat, id)
			b, _ := m.Button("✓ 1")
			presses.Store([2]int64{chat, int64(r)}, e.tg.Press(chat, chat, id, b.Data))
		}, func(chat int64) bool {
			id, ok := presses.Load([2]int64{chat, int64(r)})
			if !ok {
				return false
			}
			_, answered := e.tg.Answer(id.(string))
			return answered
		}, e.tg.Wait)
	}}.measure()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.bot.Stop(ctx); err != nil {
		return err
	}
	s1, _ := e.db.Work()
	out.TapStatements = float64(s1-s0) / float64(n*rounds)
	return nil
}

func printSizes(w io.Writer, sizes []sized) {
	if len(sizes) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\ntasks in the chat\tturn own CPU\tturn statements\tturn bytes to the model\ttap own CPU\ttap statements\t/today own CPU\t/today statements\n")
	row := func(name string, s sized) {
		fmt.Fprintf(tw, "%s\t%.0f µs\t%.1f\t%.0f\t%.0f µs\t%.1f\t%.0f µs\t%.1f\n", name, us(s.Turns.OwnCPU), s.TurnStatements, s.TurnModelBytes,
			us(s.Taps.OwnCPU), s.TapStatements, us(s.Today.OwnCPU), s.TodayStatements)
	}
	for _, s := range sizes {
		row(fmt.Sprint(s.Tasks), s)
	}
	first, last := sizes[0], sizes[len(sizes)-1]
	fmt.Fprintf(tw, "%d ÷ %d\t%.2f×\t%.2f×\t%.2f×\t%.2f×\t%.2f×\t%.2f×\t%.2f×\n", last.Tasks, first.Tasks,
		ratio(us(last.Turns.OwnCPU), us(first.Turns.OwnCPU)), ratio(last.TurnStatements, first.TurnStatements), ratio(last.TurnModelBytes, first.TurnModelBytes),
		ratio(us(last.Taps.OwnCPU), us(first.Taps.OwnCPU)), ratio(last.TapStatements, first.TapStatements),
		ratio(us(last.Today.OwnCPU), us(first.Today.OwnCPU)), ratio(last.TodayStatements, first.TodayStatements))
	tw.Flush()
}

// settle waits until the database has been quiet for a moment: the
// sweep that starts with nod, and the writes after a turn's last
// message, are done.
func settle(e *env) {
	last, quiet := int64(-1), 0
	for quiet < 3 {
		time.Sleep(20 * time.Millisecond)
		if s, _ := e.db.Work(); s == last {
			quiet++
		} else {
			last, quiet = s, 0
		}
	}
}
