package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
)

// step is one thing the person does, and how many bot messages the chat
// holds once nod has answered.
type step struct {
	text    string // a message, or
	tap     string // a button on the latest change set
	waitFor int
	llm     int // sequential model calls this step costs
}

// scenario is a scripted conversation.
type scenario struct {
	name  string
	seed  func(e *env)
	agent []openaitest.Response // the agent's answers, in order
	clf   string                // the classifier's answer
	clfs  []string              // or its answers, in order
	steps []step
}

// tokens estimates a text's tokens at four bytes a token (a rough figure
// for English and JSON with common BPE vocabularies).
func tokens(n int) int { return (n + 3) / 4 }

func verdict(levels ...string) string {
	var parts []string
	for i, l := range levels {
		level, quote, _ := strings.Cut(l, ":")
		parts = append(parts, fmt.Sprintf(`{"index":%d,"level":%q,"quote":%q,"reasoning":"bench"}`, i, level, quote))
	}
	return `{"actions":[` + strings.Join(parts, ",") + `]}`
}

func calls(cs ...openaitest.ToolCall) openaitest.Response { return openaitest.Calls(cs...) }

func call(name string, args any) openaitest.ToolCall {
	return openaitest.Call("call_"+name, name, args)
}

const benchChat = 42

func seedLogin(e *env) {
	est := 120
	e.seed(benchChat, nod.Task{ID: "T1", Title: "Fix login bug", Description: "Users are logged out after 5 minutes.",
		Status: nod.StatusInProgress, Priority: nod.P3, EstimateMinutes: &est, DueDate: "2026-12-15",
		Checklist: []nod.ChecklistItem{{ID: "c1", Title: "Write tests", CheckedBy: nod.ActorUser}}})
	e.seed(benchChat, nod.Task{ID: "T2", Title: "Launch plan"})
}

var scenarios = []scenario{
	{
		name: "explicit single edit", seed: seedLogin,
		agent: []openaitest.Response{calls(call("set_task_priority", map[string]string{"task_id": "T1", "priority": "P1"})), openaitest.Text("Raised it to P1.")},
		clf:   verdict("explicit:raise the login bug to P1"),
		steps: []step{{text: "raise the login bug to P1", waitFor: 2, llm: 3}},
	},
	{
		name: "clarification then explicit", seed: seedLogin,
		agent: []openaitest.Response{
			openaitest.Text("I see two issues: the title and the estimate. Which should I fix?"),
			calls(call("set_task_title", map[string]string{"task_id": "T1", "title": "Fix login redirect bug"}),
				call("update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90})),
			openaitest.Text("Both fixed."),
		},
		clf:   verdict("explicit:both", "explicit:both"),
		steps: []step{{text: "tidy up the login task", waitFor: 1, llm: 1}, {text: "both", waitFor: 3, llm: 3}},
	},
	{
		name: "vague batch, set of 5, confirm all", seed: seedLogin,
		agent: []openaitest.Response{
			calls(call("add_multiple_checklist_items", map[string]any{"task_id": "T2", "items": []map[string]string{
				{"title": "Draft announcement"}, {"title": "Update pricing page"}, {"title": "Brief support"}, {"title": "Schedule posts"}, {"title": "Go/no-go meeting"}}})),
			openaitest.Text("Here is a checklist for the launch."),
		},
		clf:   verdict("needs_confirmation"),
		steps: []step{{text: "help me plan the launch", waitFor: 2, llm: 3}, {tap: "✓ All", waitFor: 2}},
	},
	{
		name: "proactive /review", seed: seedLogin,
		agent: []openaitest.Response{
			calls(call("update_task_due_date", map[string]any{"task_id": "T2", "due_date": "2026-12-20"}),
				call("set_task_priority", map[string]string{"task_id": "T2", "priority": "P1"})),
			openaitest.Text("Two suggestions."),
		},
		steps: []step{{text: "/review", waitFor: 2, llm: 2}},
	},
	{
		name: "plan, answer in words, undo, ask again, delete with a typo", seed: seedLogin,
		agent: []openaitest.Response{
			calls(call("add_multiple_checklist_items", map[string]any{"task_id": "T2", "items": []map[string]string{
				{"title": "Draft announcement"}, {"title": "Update pricing page"}, {"title": "Brief support"}}}),
				call("update_task_due_date", map[string]any{"task_id": "T2", "due_date": "2026-12-20"})),
			openaitest.Text("Here is a plan for the launch."),
			calls(call("update_task_due_date", map[string]any{"task_id": "T2", "due_date": "2026-12-20"})),
			openaitest.Text("Done."),
			calls(call("delete_task", map[string]any{"task_id": "T2"})),
			openaitest.Text("Once you confirm, it goes to the trash."),
		},
		clfs: []string{verdict("needs_confirmation", "needs_confirmation"), verdict("explicit:set the launch due date to 20 Dec after all")},
		steps: []step{
			{text: "plan the launch", waitFor: 2, llm: 3},
			{text: "yes to 1, 2 and 4, no to 3", waitFor: 3},
			{text: "/undo", waitFor: 4},
			{text: "set the launch due date to 20 Dec after all", waitFor: 6, llm: 3},
			{text: "delete the launch plan", waitFor: 8, llm: 2},
			{text: "Launch plna", waitFor: 9},
			{text: "Launch plan", waitFor: 10},
		},
	},
	{
		name: "read-only question", seed: seedLogin,
		agent: []openaitest.Response{calls(call("list_tasks", map[string]string{})), openaitest.Text("You have two tasks; the login bug is due 15 Dec.")},
		steps: []step{{text: "what's on my list?", waitFor: 1, llm: 2}},
	},
}

// result is what one scenario measured.
type result struct {
	Name             string        `json:"name"`
	AgentCalls       int           `json:"agent_calls"`
	ClassifierCalls  int           `json:"classifier_calls"`
	PromptTokens     int           `json:"prompt_tokens_est"`
	CompletionTokens int           `json:"completion_tokens_est"`
	MaxPromptTokens  int           `json:"max_prompt_tokens_est"`
	Latency          time.Duration `json:"latency_ns"`
	SequentialLLM    int           `json:"sequential_llm_calls"`
	// TelegramTrips are the Bot API round trips the person waits through
	// for what they see change, in order: each message, edit or answer
	// after a step's first waits for the one before it.
	TelegramTrips int      `json:"telegram_round_trips"`
	Overhead      float64  `json:"overhead_ratio"`
	Prompt        prompts  `json:"agent_prompts"`
	Transcript    string   `json:"-"`
	Errors        []string `json:"errors,omitempty"`

	// ToReceipt and ToSet are, over the scenario's messages that start
	// a turn, the longest time from the update to the turn's first
	// receipt, or to its change-set message, reaching Telegram, in units
	// of the injected model latency; 0: no turn sent one.
	ToReceipt float64 `json:"time_to_receipt_model_units,omitempty"`
	ToSet     float64 `json:"time_to_set_model_units,omitempty"`
}

// runScenario plays a scenario with every model call taking latency and
// every Bot API call Telegram's round trip rtt.
func runScenario(sc scenario, dsn string, latency, rtt time.Duration) (res result) {
	r := &reporter{}
	defer r.close()
	res.Name = sc.name
	defer func() {
		if p := recover(); p != nil {
			if f, ok := p.(fatal); ok {
				res.Errors = append(res.Errors, f.msg)
				return
			}
			panic(p)
		}
	}()
	e, err := start(r, dsn, 0, rtt)
	if err != nil {
		res.Errors = append(res.Errors, err.Error())
		return res
	}
	sc.seed(e)
	var clfCalls atomic.Int32
	agentScript := openaitest.Script(agentModel, func(openaitest.Request) openaitest.Response {
		answer := sc.clf
		if i := int(clfCalls.Add(1)) - 1; i < len(sc.clfs) {
			answer = sc.clfs[i]
		}
		resp := openaitest.Text(answer)
		resp.Delay = latency
		return resp
	}, withDelay(sc.agent, latency)...)
	asked := &asks{}
	e.llm.Handle(asked.timed(agentScript))
	var (
		transcript strings.Builder
		turnStarts []int // index of each step's first agent request
	)
	for _, st := range sc.steps {
		turnStarts = append(turnStarts, len(e.llm.RequestsFor(agentModel)))
		before := len(e.tg.BotMessages(benchChat))
		calls := len(e.tg.Calls(""))
		start := time.Now()
		if st.text != "" {
			fmt.Fprintf(&transcript, "you  › %s\n", st.text)
			e.tg.SendText(benchChat, 42, st.text)
		} else {
			msgs := e.tg.BotMessages(benchChat)
			set := msgs[len(msgs)-1]
			fmt.Fprintf(&transcript, "you  › [taps %s]\n", st.tap)
			e.tg.WaitAnswer(e.tg.Tap(benchChat, 42, set.ID, st.tap))
			e.tg.WaitMessage(benchChat, set.ID, "the set to be edited", func(m telegramtest.Message) bool { return m.Edits > 0 })
		}
		e.tg.WaitBotMessages(benchChat, st.waitFor)
		res.Latency += time.Since(start)
		beside := 0
		if st.llm > 0 {
			beside = res.timeTurn(e.tg.BotMessages(benchChat)[before:], start, asked.last().Add(latency), latency)
		}
		res.SequentialLLM += st.llm
		res.TelegramTrips += max(0, visibleCalls(e.tg.Calls("")[calls:])-1-beside)
		// The next step starts once nod has its last answer from
		// Telegram, as a person does not type within a round trip.
		e.tg.Wait("the bot's calls answered", e.tg.Wire().Idle)
		for _, m := range transcriptMessages(e)[before:] {
			transcript.WriteString(m)
		}
	}
	// Edited messages as they are at the end.
	for i, m := range e.tg.BotMessages(benchChat) {
		if m.Edits > 0 {
			transcript.WriteString("--- after the edits ---\n" + transcriptMessages(e)[i])
		}
	}
	res.Transcript = transcript.String()
	for _, q := range e.llm.Requests() {
		if q.Model == clfModel {
			res.ClassifierCalls++
		} else {
			res.AgentCalls++
		}
		t := tokens(len(q.Raw))
		res.PromptTokens += t
		res.MaxPromptTokens = max(res.MaxPromptTokens, t)
	}
	for _, a := range sc.agent {
		b, _ := json.Marshal(a.ToolCalls)
		res.CompletionTokens += tokens(len(a.Text) + len(b))
	}
	res.CompletionTokens += tokens(len(sc.clf)) * res.ClassifierCalls
	res.Prompt = promptStats(e.llm.RequestsFor(agentModel), turnStarts)
	if floor := time.Duration(res.SequentialLLM)*latency + time.Duration(res.TelegramTrips)*rtt; floor > 0 {
		res.Overhead = float64(res.Latency) / float64(floor)
	}
	res.Errors = append(res.Errors, r.errs...)
	return res
}

// asks records when each agent request arrived.
type asks struct {
	mu sync.Mutex
	at []time.Time
}

// timed is h, recording the agent requests it answers.
func (a *asks) timed(h func(openaitest.Request) openaitest.Response) func(openaitest.Request) openaitest.Response {
	return func(q openaitest.Request) openaitest.Response {
		if q.Model == agentModel {
			a.mu.Lock()
			a.at = append(a.at, time.Now())
			a.mu.Unlock()
		}
		return h(q)
	}
}

// last is when the latest agent request arrived.
func (a *asks) last() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.at) == 0 {
		return time.Time{}
	}
	return a.at[len(a.at)-1]
}

// timeTurn adds to res how long after start a turn's first receipt and
// change set reached Telegram, in msgs (what the turn sent), and returns
// how many of msgs went out before answered, when the turn's last model
// call was answered: beside it (a receipt), so that the person waited for
// the model, not for their round trips.
func (res *result) timeTurn(msgs []telegramtest.Message, start, answered time.Time, latency time.Duration) (beside int) {
	receipt, set := firstSent(msgs, start)
	res.ToReceipt, res.ToSet = max(res.ToReceipt, units(receipt, latency)), max(res.ToSet, units(set, latency))
	for _, m := range msgs {
		if m.Sent.Before(answered) {
			beside++
		}
	}
	return beside
}

// firstSent returns how long after start the first receipt (a message
// with an Undo button) and the first change-set message (one with ✓ 1)
// among msgs reached the fake Telegram; 0 for none.
func firstSent(msgs []telegramtest.Message, start time.Time) (receipt, set time.Duration) {
	for _, m := range msgs {
		if _, ok := m.Button("↩️ Undo"); ok && receipt == 0 {
			receipt = m.Sent.Sub(start)
		}
		if _, ok := m.Button("✓ 1"); ok && set == 0 {
			set = m.Sent.Sub(start)
		}
	}
	return receipt, set
}

// units is d in units of the model's latency.
func units(d, latency time.Duration) float64 {
	if latency <= 0 {
		return 0
	}
	return float64(d) / float64(latency)
}

// visibleCalls counts the calls that change what the person sees.
func visibleCalls(calls []telegramtest.Call) int {
	n := 0
	for _, c := range calls {
		switch c.Method {
		case "sendMessage", "editMessageText", "editMessageReplyMarkup", "answerCallbackQuery":
			n++
		}
	}
	return n
}

func withDelay(rs []openaitest.Response, d time.Duration) []openaitest.Response {
	out := make([]openaitest.Response, len(rs))
	for i, r := range rs {
		r.Delay = d
		out[i] = r
	}
	return out
}

// transcriptMessages renders the bot's messages as a person reads them.
func transcriptMessages(e *env) []string {
	var out []string
	for _, m := range e.tg.BotMessages(benchChat) {
		var b strings.Builder
		for i, line := range strings.Split(formatting.PlainText(m.Text), "\n") {
			prefix := "     "
			if i == 0 {
				prefix = "nod  ‹ "
			}
			b.WriteString(prefix + line + "\n")
		}
		if bs := m.Buttons(); len(bs) > 0 {
			var labels []string
			for _, btn := range bs {
				labels = append(labels, "["+btn.Text+"]")
			}
			b.WriteString("       " + strings.Join(labels, " ") + "\n")
		}
		out = append(out, b.String())
	}
	return out
}
