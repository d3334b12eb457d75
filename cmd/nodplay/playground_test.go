package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage"
)

// testPlayground runs the playground on a free port with the guided tour,
// stopped when the test ends; the database file is the test's.
type testPlayground struct {
	*playground
	t    *testing.T
	db   string
	logs *fixtures.LogBuffer
}

func newPlayground(t *testing.T, env map[string]string, o options) *testPlayground {
	t.Helper()
	if o.addr == "" {
		o.addr = "127.0.0.1:0"
	}
	if o.model == "" {
		o.model = "tour"
	}
	if o.lang == "" {
		o.lang = "en"
	}
	if o.db == "" {
		o.db = filepath.Join(t.TempDir(), "nod.db")
	}
	o.seed = true
	logs := &fixtures.LogBuffer{}
	if env == nil {
		// The person's pace is not the test's: Telegram's limits are
		// nod's to keep, and TestRateLimits tests them.
		env = map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000"}
	}
	p, err := start(t.Context(), o, env, logs, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatalf("start: %v\n%s", err, logs)
	}
	// start returns once nod polls; a test over before nod's start is
	// would cut it short, which nod reports as an error (and fx, cut
	// short, stops nothing it started).
	p.tg.Wait("nod to finish starting", func() bool { return strings.Contains(logs.String(), "msg=running") })
	t.Cleanup(func() {
		if err := p.close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Errorf("the playground logged an error:\n%s", logs)
		}
	})
	return &testPlayground{playground: p, t: t, db: o.db, logs: logs}
}

func (tp *testPlayground) post(path string, body any) {
	tp.t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post("http://"+tp.addr+path, "application/json", bytes.NewReader(b))
	if err != nil {
		tp.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		msg, _ := io.ReadAll(resp.Body)
		tp.t.Fatalf("POST %s %s: %d %s", path, b, resp.StatusCode, msg)
	}
}

// viewAfter long-polls the page's view newer than version.
func (tp *testPlayground) viewAfter(version uint64) view {
	tp.t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://%s/chat?after=%d", tp.addr, version))
	if err != nil {
		tp.t.Fatal(err)
	}
	defer resp.Body.Close()
	var v view
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		tp.t.Fatal(err)
	}
	return v
}

// waitView waits, through the page's long poll, until cond holds.
func (tp *testPlayground) waitView(what string, cond func(view) bool) view {
	tp.t.Helper()
	deadline := time.Now().Add(telegramtest.WaitTimeout)
	var v view
	for version := uint64(0); time.Now().Before(deadline); version = v.Version {
		if v = tp.viewAfter(version); cond(v) {
			return v
		}
	}
	tp.t.Fatalf("timed out waiting for %s; the chat:\n%s", what, transcript(v))
	return v
}

// botSays waits for a message of nod's containing text.
func (tp *testPlayground) botSays(text string) viewMessage {
	tp.t.Helper()
	var found viewMessage
	tp.waitView(fmt.Sprintf("nod to say %q", text), func(v view) bool {
		for _, m := range v.Msgs {
			if m.Bot && strings.Contains(m.HTML, text) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

func (m viewMessage) button(prefix string) (viewButton, bool) {
	for _, row := range m.Buttons {
		for _, b := range row {
			if strings.HasPrefix(b.Text, prefix) {
				return b, true
			}
		}
	}
	return viewButton{}, false
}

func transcript(v view) string {
	var b strings.Builder
	for _, m := range v.Msgs {
		who := "you"
		if m.Bot {
			who = "nod"
		}
		fmt.Fprintf(&b, "%s (%d) › %s\n", who, m.ID, m.HTML)
		for _, row := range m.Buttons {
			for _, btn := range row {
				fmt.Fprintf(&b, "  [%s]", btn.Text)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// The guided tour runs against nod's real requests: every step does what
// the page says it does, and the store shows it.
func TestTourWalksThrough(t *testing.T) {
	t.Parallel()
	tp := newPlayground(t, nil, options{})
	task := func(title string) nod.Task {
		db := storage.New(storage.Options{DSN: tp.db}, time.Now, slog.New(slog.DiscardHandler))
		if err := db.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ts, err := db.Tasks().ListTasks(t.Context(), player, nod.TaskFilter{Query: title})
		if err != nil || len(ts) != 1 {
			t.Fatalf("task %q: %v, %v", title, ts, err)
		}
		return ts[0]
	}

	tp.post("/send", map[string]any{"text": tourSteps[0].Try[0]})
	receipt := tp.botSays("because you said")
	if got := task("login").Priority; got != nod.P1 {
		t.Errorf("priority after the explicit request = %s, want P1", got)
	}
	undo, ok := receipt.button("↩️ Undo")
	if !ok {
		t.Fatalf("the receipt has no Undo: %+v", receipt)
	}
	tp.post("/press", map[string]any{"message": receipt.ID, "data": undo.Data})
	tp.waitView("the Undo's notice", func(v view) bool { return v.Notice != nil })
	tp.botSays("Undone")
	if got := task("login").Priority; got != nod.P3 {
		t.Errorf("priority after Undo = %s, want P3", got)
	}

	tp.post("/send", map[string]any{"text": tourSteps[2].Try[0]})
	set := tp.botSays("Proposed changes")
	for _, n := range []string{"1", "2"} {
		verb := map[string]string{"1": "✓ ", "2": "✗ "}[n]
		b, ok := set.button(verb + n)
		if !ok {
			t.Fatalf("no %s%s on %+v", verb, n, set)
		}
		tp.post("/press", map[string]any{"message": set.ID, "data": b.Data})
	}
	tp.waitView("items 1 and 2 decided", func(v view) bool {
		for _, m := range v.Msgs {
			_, undo1 := m.button("↩️ Undo 1")
			_, reject2 := m.button("✗ 2")
			if m.ID == set.ID && undo1 && !reject2 {
				return true
			}
		}
		return false
	})
	tp.post("/send", map[string]any{"text": strings.TrimPrefix(tourSteps[4].Try[0], "↩ "), "reply_to": set.ID})
	tp.botSays("we already did that last week")
	tp.post("/send", map[string]any{"text": tourSteps[5].Try[0]})
	tp.botSays("Rejected 1")
	lp := task("Launch plan")
	if len(lp.Checklist) != 2 || lp.Checklist[0].Title != "Draft announcement" || lp.DueDate != "" {
		t.Errorf("Launch plan after ✓ 1, ✗ 2, yes to 3, no to 4 = %+v", lp)
	}

	tp.post("/send", map[string]any{"text": tourSteps[6].Try[0]})
	tp.botSays("To delete it, reply with its exact title")
	tp.post("/send", map[string]any{"text": tourSteps[6].Try[1]})
	tp.botSays("to the trash")

	tp.post("/send", map[string]any{"text": "/review"})
	review := tp.botSays("review of your tasks")
	if _, ok := review.button("✓ 1"); !ok {
		t.Errorf("the review's suggestions have no buttons: %+v", review)
	}

	// The demo notebook: clear words add a note at once, with a receipt
	// and no Undo; a deletion waits as a ⚠️ item and runs on its ✓.
	tp.post("/send", map[string]any{"text": tourSteps[8].Try[0]})
	ran := tp.botSays("Ran <b>notebook › add_note</b>")
	if _, ok := ran.button("↩️ Undo"); ok || !strings.Contains(ran.HTML, "cannot undo") {
		t.Errorf("the note's receipt offers an Undo or does not say nod cannot undo it: %+v", ran)
	}
	if notes := tp.notebook.book.Notes(); len(notes) != 1 || notes[0].Text != "the plumber comes on Monday" {
		t.Fatalf("notes after the tour's note = %+v", notes)
	}
	tp.post("/send", map[string]any{"text": tourSteps[8].Try[1]})
	del := tp.botSays("⚠️")
	if n := len(tp.notebook.book.Notes()); n != 1 {
		t.Fatalf("a deletion ran before its ✓: %d notes", n)
	}
	ok1, ok := del.button("✓ 1")
	if !ok {
		t.Fatalf("the deletion has no ✓ 1: %+v", del)
	}
	tp.post("/press", map[string]any{"message": del.ID, "data": ok1.Data})
	tp.waitView("the note deleted", func(view) bool { return len(tp.notebook.book.Notes()) == 0 })

	tp.post("/send", map[string]any{"text": "what is the weather?"})
	tp.botSays("guided tour")

	// What the tour's classifier was told is nod's own: it saw the person's
	// words and the action list, and judged from them.
	var told bool
	for _, r := range tp.llm.RequestsFor(tourClassifierModel) {
		told = told || strings.Contains(r.LastUser(), "set_task_priority") && strings.Contains(r.Messages[1].Content, "raise the login bug to P1")
	}
	if !told {
		t.Errorf("no classifier request showed the priority change with the person's words")
	}
}

// The page answers bad input with a clear status and changes nothing.
func TestPlaygroundBadInput(t *testing.T) {
	t.Parallel()
	tp := newPlayground(t, nil, options{})
	for _, c := range []struct{ path, body string }{
		{"/send", `not json`},
		{"/send", `{"text": "   "}`},
		{"/send", `{"text": "` + strings.Repeat("x", maxText+1) + `"}`},
		{"/press", `{"message": 1}`},
		{"/forward", `not json`},
		{"/forward", `{"from": "  ", "text": "raise it"}`},
		{"/edit", `not json`},
		{"/edit", `{"message": 999, "text": "no such message"}`},
	} {
		resp, err := http.Post("http://"+tp.addr+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("POST %s %.40s: %d, want 400", c.path, c.body, resp.StatusCode)
		}
	}
	if n := len(tp.tg.ChatMessages(player)); n != 0 {
		t.Errorf("bad input reached the chat: %d messages", n)
	}
	// A forged press is nod's to refuse, as Telegram would deliver it.
	tp.post("/press", map[string]any{"message": 1, "data": "1c.forged.1"})
	v := tp.waitView("the refusal", func(v view) bool { return v.Notice != nil })
	if v.Notice.Text == "" {
		t.Errorf("no refusal notice")
	}
}

func TestBrowserHTML(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"<b>Done</b> &amp; &lt;ok&gt;", "<b>Done</b> &amp; &lt;ok&gt;"},
		{"<strong>a</strong><em>b</em><del>c</del>", "<b>a</b><i>b</i><s>c</s>"},
		{`<a href="https://example.org/?a=1&amp;b=2">x</a>`, `<a href="https://example.org/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">x</a>`},
		{`<a href="javascript:alert(1)">x</a>`, `<a href="#" target="_blank" rel="noopener noreferrer">x</a>`},
		{`<pre><code class="language-go">x := 1</code></pre>`, `<pre><code>x := 1</code></pre>`},
		{`<tg-spoiler>s</tg-spoiler>`, `<span class="spoiler">s</span>`},
		{`<script>alert(1)</script>`, `alert(1)`},
		{`<b onclick="x()">bold`, `<b>bold</b>`},
		{`&#34;quoted&#34; it's`, `&#34;quoted&#34; it&#39;s`},
	} {
		if got := browserHTML(c.in); got != c.want {
			t.Errorf("browserHTML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// With an endpoint, nod talks to it as nod serve would: the model and the
// classifier named in the environment, the person's words in the request.
func TestPlaygroundOnEndpoint(t *testing.T) {
	t.Parallel()
	llm := openaitest.New(t)
	llm.Handle(openaitest.Script("my-model", nil, openaitest.Text("Hello from the endpoint.")))
	tp := newPlayground(t, map[string]string{"OPENAI_BASE_URL": llm.URL, "NOD_MODEL": "my-model", "NOD_RATE_CHAT": "1000"}, options{model: "endpoint"})
	if got := tp.modelName(); got != "model my-model" {
		t.Errorf("the page names the model %q", got)
	}
	tp.post("/send", map[string]any{"text": "hi there"})
	tp.botSays("Hello from the endpoint.")
	if reqs := llm.RequestsFor("my-model"); len(reqs) != 1 || reqs[0].LastUser() != "hi there" {
		t.Errorf("the endpoint was asked %+v", reqs)
	}
}

// A nod that fails to start ends nodplay with its error; it used to wait
// forever for a result the failed start had already taken, deaf to
// SIGTERM.
func TestNodFailsToStart(t *testing.T) {
	t.Parallel()
	args := []string{"-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "nod.db")}
	environ := func() []string { return []string{"NOD_STEP_TIMEOUT=abc"} }
	res := make(chan error, 1)
	go func() { res <- run(t.Context(), args, environ, io.Discard, io.Discard) }()
	select {
	case err := <-res:
		if err == nil || !strings.Contains(err.Error(), "nod did not start") || !strings.Contains(err.Error(), "NOD_STEP_TIMEOUT") {
			t.Errorf("run = %v, want nod's start failure naming NOD_STEP_TIMEOUT", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("nodplay hangs when nod fails to start")
	}
}

// A playground started again on its database goes on with the chat: its
// stand-in numbers updates on from the last one nod handled, as Telegram
// does, where it used to start at 1 again and nod skipped as many
// messages as the last run had received.
func TestPlaygroundRestartKeepsMessages(t *testing.T) {
	t.Parallel()
	llm := openaitest.New(t)
	llm.Handle(func(r openaitest.Request) openaitest.Response { return openaitest.Text("heard: " + r.LastUser()) })
	env := map[string]string{"OPENAI_BASE_URL": llm.URL, "NOD_MODEL": "my-model", "NOD_RATE_CHAT": "1000"}
	db := filepath.Join(t.TempDir(), "nod.db")
	for run, words := range [][]string{{"one", "two", "three"}, {"four", "five"}} {
		t.Run(fmt.Sprintf("run %d", run+1), func(t *testing.T) {
			tp := newPlayground(t, env, options{model: "endpoint", db: db})
			if run > 0 {
				// The chat is as the phone keeps it: the first run's
				// messages are there before anything is said.
				tp.botSays("heard: three")
			}
			for _, w := range words {
				tp.post("/send", map[string]any{"text": w})
				tp.botSays("heard: " + w)
			}
			// Telegram never reuses a message id: nod has stored the first
			// run's, and a reply to a reused one would reach the wrong message.
			v := tp.waitView("every message", func(v view) bool { return len(v.Msgs) == 2*(run*3+len(words)) })
			for i := 1; i < len(v.Msgs); i++ {
				if v.Msgs[i].ID <= v.Msgs[i-1].ID {
					t.Errorf("message %d has id %d after %d", i, v.Msgs[i].ID, v.Msgs[i-1].ID)
				}
			}
		})
	}
	var heard []string
	for _, r := range llm.RequestsFor("my-model") {
		heard = append(heard, r.LastUser())
	}
	if got := strings.Join(heard, " "); got != "one two three four five" {
		t.Errorf("the model heard %q", got)
	}
}

// A kept chat that cannot be read stops the start with a line that names
// the file, rather than a playground whose message ids would clash with
// those nod stored.
func TestPlaygroundRefusesAnUnreadableKeptChat(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "nod.db")
	if err := os.WriteFile(chatFile(db), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &fixtures.LogBuffer{}
	p, err := start(t.Context(), options{addr: "127.0.0.1:0", model: "tour", lang: "en", db: db, seed: true}, nil, logs, slog.New(slog.NewTextHandler(logs, nil)))
	if err == nil {
		p.close()
		t.Fatal("started on a kept chat it cannot read")
	}
	if !strings.Contains(err.Error(), "the kept chat "+chatFile(db)) {
		t.Errorf("err = %v", err)
	}
}

// nod's clock never runs back: a restart on a kept chat goes on from the
// time the first run's clock control had reached, not from the wall
// clock, or everything nod did then would still lie ahead of it.
func TestPlaygroundRestartKeepsTheClock(t *testing.T) {
	t.Parallel()
	llm := openaitest.New(t)
	llm.Handle(func(r openaitest.Request) openaitest.Response { return openaitest.Text("heard: " + r.LastUser()) })
	env := map[string]string{"OPENAI_BASE_URL": llm.URL, "NOD_MODEL": "my-model", "NOD_RATE_CHAT": "1000"}
	db := filepath.Join(t.TempDir(), "nod.db")
	var moved time.Time
	t.Run("run 1", func(t *testing.T) {
		tp := newPlayground(t, env, options{model: "endpoint", db: db})
		tp.post("/clock", map[string]any{"by": "morning"})
		tp.waitView("the clock to move", func(v view) bool { return v.Ahead })
		tp.post("/send", map[string]any{"text": "one"})
		tp.botSays("heard: one")
		moved = tp.now()
	})
	t.Run("run 2", func(t *testing.T) {
		tp := newPlayground(t, env, options{model: "endpoint", db: db})
		if now := tp.now(); now.Before(moved) {
			t.Errorf("nod's clock after the restart = %s, before the first run's %s", now, moved)
		}
	})
}

// A German player's example tasks are German; the tour, whose script is
// English, keeps the English ones whatever the language.
func TestPlaygroundSeedsInThePlayersLanguage(t *testing.T) {
	t.Parallel()
	llm := openaitest.New(t)
	env := map[string]string{"OPENAI_BASE_URL": llm.URL, "NOD_MODEL": "my-model"}
	for _, c := range []struct {
		model, lang, want string
	}{{"endpoint", "de", "Login-Fehler beheben"}, {"endpoint", "de-AT", "Login-Fehler beheben"}, {"endpoint", "en", "Fix login bug"}, {"tour", "de", "Fix login bug"}} {
		tp := newPlayground(t, env, options{model: c.model, lang: c.lang})
		db := storage.New(storage.Options{DSN: tp.db}, time.Now, slog.New(slog.DiscardHandler))
		if err := db.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		ts, err := db.Tasks().ListTasks(t.Context(), player, nod.TaskFilter{})
		db.Close()
		if err != nil || len(ts) != 3 || !slices.ContainsFunc(ts, func(task nod.Task) bool { return task.Title == c.want }) {
			t.Errorf("%s, %s: the examples are %v (%v), want %q among them", c.model, c.lang, ts, err, c.want)
		}
	}
}
