package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/bot"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
	"github.com/nodbot/nod/sweep"
	"github.com/prometheus/client_golang/prometheus"
)

const (
	chat     = 100
	user     = 42
	stranger = 666
)

// env is the bot on the fakes, wired by hand as cmd/nod wires it: real
// SQLite, the real agent and classifier on a fake model, a settable clock.
// It starts in milliseconds, so the bot's own logic gets fast tests.
type env struct {
	t     *testing.T
	tg    *telegramtest.Server
	llm   *openaitest.Server
	db    *storage.DB
	clock *fixtures.Clock
	reg   *prometheus.Registry
}

// confirmDeps wires a confirmation service to db as the app does.
func confirmDeps(db *storage.DB) confirm.Deps {
	return confirm.Deps{Decisions: db.ChangeSets(), Tasks: db.Tasks(), Editor: db.Tasks(), Undos: db.Undo(), Breaker: db.Settings(), Rules: db.Rules(), Deletions: db.Deletions(), Replies: db.ChangeSets(), Words: answer.NewReader(formatting.AnswerWords())}
}

func newEnv(t *testing.T) *env { return newEnvWith(t, nil) }

// newEnvWith is newEnv with turner in place of the agent, if not nil.
func newEnvWith(t *testing.T, turner bot.Turner) *env { return newEnvOpts(t, turner, nil) }

// newEnvOpts is newEnvWith with the bot's options changed by opts, if
// not nil.
func newEnvOpts(t *testing.T, turner bot.Turner, opts func(*bot.Options)) *env {
	t.Helper()
	e := &env{t: t, tg: telegramtest.New(t), llm: openaitest.New(t), clock: fixtures.NewClock(fixtures.DefaultNow), reg: prometheus.NewRegistry()}
	e.db = storagetest.Open(t, "sqlite", e.clock.Now)
	log := slog.New(slog.DiscardHandler)
	clf := confidence.New(confidence.Options{BaseURL: e.llm.URL, Model: "clf", Timeout: 5 * time.Second, Lexicon: formatting.Words}, log)
	c := confirm.New(confirmDeps(e.db), e.clock.Now, log, nil)
	ag := agent.New(agent.Options{BaseURL: e.llm.URL, Model: "agent", StepTimeout: 5 * time.Second, Lexicon: formatting.Words},
		agent.Deps{Tasks: e.db.Tasks(), Editor: e.db.Tasks(), Settings: e.db.Settings(), Conversation: e.db.Conversation(), Proposals: e.db.ChangeSets(), Memory: e.db.ChangeSets(), Undone: e.db.Undo(), Rulebook: e.db.Rules(), Classifier: clf, Answers: c, Words: answer.NewReader(formatting.AnswerWords())}, e.clock.Now, log)
	if turner == nil {
		turner = ag
	}
	unlimited := bot.Limits{PerChat: 1e6, PerChatBurst: 1e6, PerGroup: 1e8, Global: 1e6}
	o := bot.Options{Token: telegramtest.Token, APIURL: e.tg.URL, AllowedUsers: []nod.UserID{user}, PollTimeout: 2 * time.Second, Limits: unlimited, Metrics: e.reg}
	if opts != nil {
		opts(&o)
	}
	b := bot.New(o,
		bot.Deps{Updates: e.db.Outbox(), Tasks: e.db.Tasks(), Audit: e.db.Audit(), Sets: e.db.ChangeSets(), Undos: e.db.Undo(), Chats: e.db.Settings(), Rulebook: e.db.Rules(),
			Conversation: e.db.Conversation(), Messages: e.db.Messages(), Buttons: e.db.Messages(), Deletions: e.db.Deletions(), Answers: c, Keeper: e.db.ChangeSets(), Outbox: e.db.Outbox(),
			Sweep:  sweep.New(sweep.Deps{Expiry: e.db.ChangeSets(), Deletions: e.db.Deletions(), Trash: e.db.Tasks(), Buttons: e.db.Messages(), Updates: e.db.Outbox(), Outbox: e.db.Outbox(), Tasks: e.db.Tasks()}, sweep.Options{AllowedUsers: []nod.UserID{user}}, e.clock.Now, log),
			Turner: turner, Decider: c, Mender: c, Changer: c, Rules: c, Exports: e.db.Exports()}, e.clock.Now, log)
	if err := b.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return e
}

// settle waits until the bot handles no button press, edits after the
// answers included, as its nod_presses_in_flight gauge says.
func (e *env) settle() {
	e.t.Helper()
	e.tg.Wait("button presses to settle", func() bool {
		mfs, err := e.reg.Gather()
		if err != nil {
			e.t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "nod_presses_in_flight" {
				return mf.GetMetric()[0].GetGauge().GetValue() == 0
			}
		}
		return false
	})
}

// task seeds a task of the chat.
func (e *env) task(title string, p nod.Priority) nod.Task {
	e.t.Helper()
	t := nod.Task{ID: nod.TaskID(nod.NewID()), Title: title, Status: nod.StatusOpen, Priority: p}
	if _, err := e.db.Tasks().Apply(e.t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, Tool: "create_task", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(*nod.Task) (nod.Task, error) { return t, nil }}); err != nil {
		e.t.Fatal(err)
	}
	return t
}

// propose scripts the model to propose priorities on tasks, one item each,
// which the classifier leaves to the person; it returns the set's message.
func (e *env) propose(text string, tasks ...nod.Task) telegramtest.Message {
	e.t.Helper()
	var calls []openaitest.ToolCall
	for i, t := range tasks {
		calls = append(calls, openaitest.Call("c"+string(rune('a'+i)), "set_task_priority", map[string]any{"task_id": t.ID, "priority": "P0"}))
	}
	e.llm.Handle(openaitest.Script("agent",
		func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) },
		openaitest.Calls(calls...), openaitest.Text("Shall I?")))
	before := len(e.tg.BotMessages(chat))
	e.tg.SendText(chat, user, text)
	msgs := e.tg.WaitBotMessages(chat, before+2)
	set := msgs[len(msgs)-1]
	if _, ok := set.Button("✓ 1"); !ok {
		e.t.Fatalf("no change set: %q", set.Text)
	}
	return set
}

func (e *env) priority(id nod.TaskID) nod.Priority {
	e.t.Helper()
	t, err := e.db.Tasks().Task(e.t.Context(), chat, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return t.Priority
}

// A redelivered update is handled once: one reply, one model turn.
func TestRedeliveredUpdateHandledOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.llm.Handle(openaitest.Script("agent", nil, openaitest.Text("Hi.")))
	e.tg.SendText(chat, user, "hello")
	e.tg.WaitBotMessages(chat, 1)
	var u struct {
		ID int64 `json:"update_id"`
	}
	json.Unmarshal(e.tg.Wire().LastUpdate(), &u)
	e.tg.Wire().Redeliver(u.ID)
	e.tg.SendText(chat, user, "/help") // handled after the redelivery
	msgs := e.tg.WaitBotMessages(chat, 2)
	if len(msgs) != 2 || len(e.llm.Requests()) != 1 {
		t.Errorf("after a redelivery: %d messages, %d model requests", len(msgs), len(e.llm.Requests()))
	}
}

// A stranger is refused with their id once an hour, and every press of
// theirs is refused; nothing reaches the model or changes.
func TestStrangerRefusedOnceAnHour(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	t1 := e.task("Fix login bug", nod.P3)
	set := e.propose("raise it", t1)
	requests := len(e.llm.Requests())
	e.tg.SendText(chat, stranger, "let me in")
	e.tg.SendText(chat, stranger, "please")
	refusals := func() int {
		n := 0
		for _, m := range e.tg.BotMessages(chat) {
			if strings.Contains(m.Text, "666") {
				n++
			}
		}
		return n
	}
	e.tg.Wait("the refusal", func() bool { return refusals() == 1 })
	if ans := e.tg.WaitAnswer(e.tg.Tap(chat, stranger, set.ID, "✓ 1")); ans == "" {
		t.Errorf("a stranger's press got no refusal")
	}
	e.tg.SendText(chat, user, "/help") // the queue has passed the stranger's messages
	e.tg.Wait("help", func() bool {
		return strings.Contains(e.tg.BotMessages(chat)[len(e.tg.BotMessages(chat))-1].Text, "/undo")
	})
	if n := refusals(); n != 1 {
		t.Errorf("%d refusals within the hour, want 1", n)
	}
	e.clock.Advance(61 * time.Minute)
	e.tg.SendText(chat, stranger, "again")
	e.tg.Wait("a second refusal after an hour", func() bool { return refusals() == 2 })
	if got := e.priority(t1.ID); got != nod.P3 || len(e.llm.Requests()) != requests {
		t.Errorf("a stranger changed something: priority %s, %d model requests (was %d)", got, len(e.llm.Requests()), requests)
	}
}

// A forged button, and a real one pressed in another chat, are refused
// and change nothing.
func TestForgedAndForeignPresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	t1 := e.task("Fix login bug", nod.P3)
	set := e.propose("raise it", t1)
	b, _ := set.Button("✓ 1")
	for _, p := range []struct {
		chat int64
		data string
	}{{chat, "1c.forged.1"}, {chat, "not-even-a-token"}, {chat + 1, b.Data}} {
		if ans := e.tg.WaitAnswer(e.tg.Press(p.chat, user, set.ID, p.data)); ans == "" {
			t.Errorf("press %q in chat %d got no refusal", p.data, p.chat)
		}
	}
	if got := e.priority(t1.ID); got != nod.P3 {
		t.Errorf("a refused press applied: priority %s", got)
	}
}

// "yes to 1" confirms item 1 of the latest set and leaves item 2 pending;
// a reply after ✗ 2 is its reason, stored and not sent to the model.
func TestAnswersInWordsAndReason(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	t1, t2 := e.task("Fix login bug", nod.P3), e.task("Write docs", nod.P3)
	set := e.propose("raise both", t1, t2)
	e.tg.SendText(chat, user, "yes to 1")
	e.tg.Wait("item 1 applied", func() bool { return e.priority(t1.ID) == nod.P0 })
	if got := e.priority(t2.ID); got != nod.P3 {
		t.Errorf("yes to 1 decided item 2 too: %s", got)
	}
	if ans := e.tg.WaitAnswer(e.tg.Tap(chat, user, set.ID, "✗ 2")); !strings.Contains(ans, "2") {
		t.Errorf("✗ 2 answered %q", ans)
	}
	requests := len(e.llm.Requests())
	e.tg.ReplyText(chat, user, set.ID, "docs can wait")
	e.tg.Wait("the reason", func() bool {
		d, err := e.db.ChangeSets().LatestRejection(t.Context(), setID(t, e, set.ID))
		return err == nil && d.Reason == "docs can wait"
	})
	if len(e.llm.Requests()) != requests {
		t.Errorf("the reason went to the model")
	}
}

// setID is the id of the set shown in message msgID.
func setID(t *testing.T, e *env, msgID int) nod.SetID {
	t.Helper()
	s, err := e.db.ChangeSets().ChangeSetByMessage(t.Context(), chat, msgID)
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// Taps on one set run at once, each on its own goroutine. Whichever tap's
// edit reaches Telegram last, the message ends showing every decision:
// no ✓ or ✗ stays on an item already decided. Ten items at once make a
// refresh see several decisions come in while it edits.
func TestConcurrentTapsLeaveTheMessageCurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for round := range 10 {
		var tasks []nod.Task
		for _, title := range []string{"Fix login bug", "Write docs", "Pay invoice", "Book venue", "Call Anna", "Plan sprint", "Water plants", "Renew passport", "Back up laptop", "Cancel gym"} {
			tasks = append(tasks, e.task(fmt.Sprintf("%s %d", title, round), nod.P3))
		}
		set := e.propose("raise them all", tasks...)
		var presses []string
		for n := 1; n <= len(tasks); n++ {
			verb := "✓ "
			if n%2 == 0 {
				verb = "✗ "
			}
			b, ok := set.Button(fmt.Sprintf("%s%d", verb, n))
			if !ok {
				t.Fatalf("round %d: no %s%d on %q", round, verb, n, set.Text)
			}
			presses = append(presses, e.tg.Press(chat, user, set.ID, b.Data))
		}
		for _, id := range presses {
			e.tg.WaitAnswer(id)
		}
		e.settle()
		m, _ := e.tg.Message(chat, set.ID)
		for _, b := range m.Buttons() {
			if strings.HasPrefix(b.Text, "✓") || strings.HasPrefix(b.Text, "✗") {
				t.Errorf("round %d: %q is still offered after every item was decided:\n%s", round, b.Text, m.Text)
			}
		}
	}
}

// A reply after ✗ 1 is its reason even when ✓ 2 was decided after it:
// two quick taps land in either order, and the reason is the rejection's.
func TestReasonAfterALaterConfirmation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	t1, t2 := e.task("Fix login bug", nod.P3), e.task("Write docs", nod.P3)
	set := e.propose("raise both", t1, t2)
	e.tg.WaitAnswer(e.tg.Tap(chat, user, set.ID, "✗ 1"))
	e.tg.WaitAnswer(e.tg.Tap(chat, user, set.ID, "✓ 2"))
	requests := len(e.llm.Requests())
	e.tg.ReplyText(chat, user, set.ID, "the login bug can wait")
	e.tg.Wait("the reason", func() bool {
		d, err := e.db.ChangeSets().LatestRejection(t.Context(), setID(t, e, set.ID))
		return err == nil && d.Reason == "the login bug can wait" && d.N == 1
	})
	if len(e.llm.Requests()) != requests {
		t.Errorf("the reason went to the model")
	}
}
