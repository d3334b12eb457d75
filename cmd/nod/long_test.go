package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/race"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage/storagetest"
)

// seedMany stores n tasks of chat at once (no audit rows, no undo
// entries) and returns their ids in listing order; task i is titled
// "Task i". edit, if set, shapes each.
func (h *harness) seedMany(n int, edit func(i int, t *nod.Task)) []string {
	h.t.Helper()
	tasks := make([]nod.Task, n)
	ids := make([]string, n)
	for i := range tasks {
		ids[i] = fmt.Sprintf("k%05d", i)
		tasks[i] = nod.Task{ID: nod.TaskID(ids[i]), ChatID: chat, Title: fmt.Sprintf("Task %d", i), Status: nod.StatusOpen, Priority: nod.P2}
		if edit != nil {
			edit(i, &tasks[i])
		}
	}
	if err := h.db.Tasks().ImportTasks(h.t.Context(), tasks); err != nil {
		h.t.Fatalf("seed %d tasks: %v", n, err)
	}
	return ids
}

// A model pages through 10,000 tasks with next_cursor and sees each once,
// in order, every result under 64 KB (a page holding one of the tasks of
// 90 KB is cut short); the system prompt lists 50 of them and says how
// many there are.
func TestModelPagesThroughTenThousandTasks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_MAX_STEPS"] = "80"
	h.env["NOD_STEP_TIMEOUT"] = "2m" // a race-enabled build is slow to encode a request of megabytes
	// Each step resends the pages before it, so the turn's work grows with
	// the square of the pages: under the race detector 10,000 tasks took
	// over ten minutes. 2,000 still page ten times, past two cut pages;
	// the plain run (CI's PostgreSQL pass) pages through all 10,000.
	n, every := 10000, 2500
	if race.Enabled {
		n, every = 2000, 700
	}
	want := h.seedMany(n, func(i int, t *nod.Task) {
		if i%every == 1234%every {
			t.Description = strings.Repeat("A very long description. ", 3600)
		}
	})
	var (
		mu     sync.Mutex
		seen   []string
		pages  int
		system string
	)
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Model == clfM {
			return h.clf(r)
		}
		mu.Lock()
		defer mu.Unlock()
		args := map[string]any{"limit": 200}
		if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
			if len(last.Content) >= 64<<10 {
				t.Errorf("page %d: a list_tasks result of %d bytes", pages, len(last.Content))
			}
			var res struct {
				Tasks []struct {
					ID string `json:"id"`
				} `json:"tasks"`
				Total      int     `json:"total"`
				NextCursor *string `json:"next_cursor"`
			}
			if err := json.Unmarshal([]byte(last.Content), &res); err != nil {
				t.Errorf("page %d: %v in %.200s", pages, err, last.Content)
				return openaitest.Text("broken")
			}
			if res.Total != n {
				t.Errorf("page %d: total %d, want %d", pages, res.Total, n)
			}
			pages++
			for _, task := range res.Tasks {
				seen = append(seen, task.ID)
			}
			if res.NextCursor == nil {
				return openaitest.Text(fmt.Sprintf("You have %d tasks.", res.Total))
			}
			args["cursor"] = *res.NextCursor
		} else {
			system = r.Messages[0].Content
		}
		return openaitest.Calls(call(fmt.Sprint("p", pages), "list_tasks", args))
	})
	h.start()
	h.tg.SendText(chat, user, "list all my tasks")
	// The turn runs some 60 steps, each resending the pages before it:
	// wait for it step by step, each as long as any wait of the fakes.
	for steps := 0; len(h.tg.BotMessages(chat)) == 0; {
		h.tg.Wait("the model's next step or nod's answer", func() bool {
			n := len(h.llm.RequestsFor(agentM))
			return len(h.tg.BotMessages(chat)) > 0 || n > steps
		})
		steps = len(h.llm.RequestsFor(agentM))
	}
	if got := h.tg.BotMessages(chat)[0].Text; got != fmt.Sprintf("You have %d tasks.", n) {
		t.Errorf("reply %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, want) {
		dup := map[string]int{}
		for _, id := range seen {
			dup[id]++
		}
		t.Errorf("the model saw %d tasks (%d distinct) in %d pages, want each of %d once", len(seen), len(dup), pages, n)
	}
	if pages <= n/200 {
		t.Errorf("%d pages: none was cut short by the 64 KB bound", pages)
	}
	if !strings.Contains(system, fmt.Sprintf("The user has %d tasks. These 50 matter most now", n)) || strings.Count(system, "\n- k") != 50 {
		t.Errorf("system prompt:\n%s", system)
	}
}

// /tasks shows 20 tasks a message, "page 2 of 3"; ◀ and ▶ edit it in
// place to the page before and after, and a keyboard never holds more
// than 22 buttons. A
// task tapped after it went to the trash says so and offers Restore.
func TestTasksPagesInPlace(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Overdue by a day less each: /tasks lists them in this order.
	ids := h.seedMany(45, func(i int, t *nod.Task) { t.DueDate = h.clock.Now().AddDate(0, 0, i-50).Format(nod.DateLayout) })
	h.start()
	h.tg.SendText(chat, user, "/tasks")
	list := h.tg.WaitBotMessages(chat, 1)[0]
	total := 45
	shows := func(m telegramtest.Message, from, to int, back, on bool) {
		t.Helper()
		var tasks []string
		for _, line := range strings.Split(m.Text, "\n") {
			if title, ok := strings.CutPrefix(line, "▫️ "); ok {
				title, _, _ = strings.Cut(title, " · ")
				tasks = append(tasks, title)
			}
		}
		var want []string
		for i := from; i < to; i++ {
			want = append(want, fmt.Sprintf("Task %d", i))
		}
		_, hasBack := m.Button("◀")
		_, hasOn := m.Button("▶")
		if !slices.Equal(tasks, want) || hasBack != back || hasOn != on || len(m.Buttons()) > 22 || !strings.Contains(m.Text, fmt.Sprintf("<b>Your tasks</b> (%d) · page %d of %d", total, from/20+1, (total+19)/20)) {
			t.Errorf("shows %v with ◀ %v ▶ %v (%d buttons), want tasks %d–%d with ◀ %v ▶ %v:\n%s", tasks, hasBack, hasOn, len(m.Buttons()), from, to-1, back, on, m.Text)
		}
		for i, b := range m.Buttons()[:len(tasks)] {
			if len(b.Data) > 64 || !strings.Contains(b.Data, ids[from+i]) {
				t.Errorf("button %q opens %q, want task %s", b.Text, b.Data, ids[from+i])
			}
		}
	}
	shows(list, 0, 20, false, true)
	page := func(button string, edits int) telegramtest.Message {
		t.Helper()
		h.tap(chat, user, list.ID, button)
		return h.tg.WaitMessage(chat, list.ID, "the list to be edited", func(m telegramtest.Message) bool { return m.Edits == edits })
	}
	shows(page("▶", 1), 20, 40, true, true)
	shows(page("▶", 2), 40, 45, true, false)
	shows(page("◀", 3), 20, 40, true, true)
	shows(page("◀", 4), 0, 20, false, true)
	if n := len(h.tg.BotMessages(chat)); n != 1 {
		t.Errorf("%d messages; paging edits the list in place", n)
	}
	// A task of the second page opens from it.
	shows(page("▶", 5), 20, 40, true, true)
	h.tap(chat, user, list.ID, "▫️ Task 25")
	if msgs := h.tg.WaitBotMessages(chat, 2); !strings.Contains(msgs[1].Text, "Task 25") {
		t.Errorf("the card reads %q", msgs[1].Text)
	}
	// Once the last page's tasks have gone to the trash, ◀ still leads
	// back, and ▶ from there, finding nothing after, starts over.
	shows(page("▶", 6), 40, 45, true, false)
	storagetest.Exec(t, h.dsn, `UPDATE tasks SET deleted_at = 1 WHERE id IN ('k00040', 'k00041', 'k00042', 'k00043', 'k00044')`)
	total = 40
	shows(page("◀", 7), 20, 40, true, true)
	shows(page("▶", 8), 0, 20, false, true)
	// A task deleted since the list was shown says so and comes back.
	page("▶", 9)
	storagetest.Exec(t, h.dsn, `UPDATE tasks SET deleted_at = 1 WHERE id = 'k00026'`)
	if ans := h.tap(chat, user, list.ID, "▫️ Task 26"); ans != "That task is in the trash." {
		t.Errorf("tapping a trashed task answers %q", ans)
	}
	trashed := h.tg.WaitBotMessages(chat, 3)[2]
	if trashed.Text != "🗑 “Task 26” is in the trash. Restore it to open it again." {
		t.Errorf("a trashed task reads %q", trashed.Text)
	}
	h.tap(chat, user, trashed.ID, "♻️ Restore Task 26")
	if _, err := h.db.Tasks().Task(t.Context(), chat, "k00026"); err != nil {
		t.Errorf("Task 26 after Restore: %v", err)
	}
}
