package confidence_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/formatting"
)

var (
	t0   = time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	conv = []confidence.Entry{
		{Role: nod.RoleUser, Text: "Tidy up the login task", At: t0},
		{Role: nod.RoleAssistant, Text: "I see two issues: the title and the estimate. Which should I fix?", At: t0.Add(time.Second)},
		{Role: nod.RoleUser, Text: "Please  set the   priority to P1!", At: t0.Add(2 * time.Second)},
	}
	two = []confidence.Action{{Tool: "set_task_priority", Summary: "set the priority of task T1 to P1"}, {Tool: "update_task_due_date", Summary: "set the due date of task T1 to 2026-03-20"}}
)

func classifier(t *testing.T, answer func(openaitest.Request) openaitest.Response) (*confidence.Classifier, *openaitest.Server) {
	llm := openaitest.New(t)
	llm.Handle(answer)
	return confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf-model", Lexicon: formatting.Words, Timeout: 500 * time.Millisecond}, slog.New(slog.DiscardHandler)), llm
}

func levels(vs []confidence.Verdict) string {
	var out []string
	for _, v := range vs {
		out = append(out, string(v.Level))
	}
	return strings.Join(out, ",")
}

// The request's model, no tools, the transcript and the numbered
// action list last.
func TestRequestShape(t *testing.T) {
	c, llm := classifier(t, func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) })
	c.Classify(t.Context(), nil, conv, two)
	reqs := llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "clf-model" || len(r.Tools) != 0 || len(r.ResponseFormat) == 0 {
		t.Errorf("model %s, %d tools, response format %s", r.Model, len(r.Tools), r.ResponseFormat)
	}
	last := r.LastUser()
	if !strings.Contains(last, "0. set_task_priority: set the priority of task T1 to P1\n1. update_task_due_date:") {
		t.Errorf("action list = %q", last)
	}
	want := "Conversation:\nUser: Tidy up the login task\nAssistant: I see two issues: the title and the estimate. Which should I fix?\nUser: Please set the priority to P1!"
	if got := r.Messages[1].Content; got != want {
		t.Errorf("transcript = %q, want %q", got, want)
	}
}

// Answers that count as explicit, and quotes that do not.
func TestExplicitAnswers(t *testing.T) {
	for name, content := range map[string]string{
		"plain":        `{"actions":[{"index":0,"level":"explicit","quote":"set the priority to p1","reasoning":"asked"}]}`,
		"upper":        `{"actions":[{"index":0,"level":"EXPLICIT","quote":"set the  priority to P1","reasoning":"asked"}]}`,
		"fenced":       "Here you go:\n```json\n{\"actions\":[{\"index\":0,\"level\":\"explicit\",\"quote\":\"Please set the priority\"}]}\n```",
		"no reasoning": `{"actions":[{"index":0,"level":"explicit","quote":"priority to P1!"}]}`,
	} {
		c, _ := classifier(t, func(openaitest.Request) openaitest.Response { return openaitest.Text(content) })
		vs := c.Classify(t.Context(), nil, conv, two[:1])
		if !vs[0].Explicit() || !vs[0].QuoteAt.Equal(t0.Add(2*time.Second)) {
			t.Errorf("%s: verdict %+v, want explicit quoting the third entry", name, vs[0])
		}
	}
	for name, quote := range map[string]string{
		"assistant's words": "I see two issues",
		"not what was said": "set priority to P1",
		"the action list":   "set the priority of task T1 to P1",
		"empty":             "",
		"one letter":        "t",
		"one word of many":  "priority",
	} {
		c, _ := classifier(t, func(openaitest.Request) openaitest.Response {
			return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"` + quote + `"}]}`)
		})
		if v := c.Classify(t.Context(), nil, conv, two[:1])[0]; v.Explicit() {
			t.Errorf("%s: quote %q accepted", name, quote)
		}
	}
}

// Every failure leaves the actions needing confirmation, after one
// request.
func TestFailuresNeedConfirmation(t *testing.T) {
	for name, resp := range map[string]openaitest.Response{
		"not json":       openaitest.Text("not json"),
		"no level":       openaitest.Text(`{"actions":[{"index":0,"quote":"set the priority to P1"},{"index":1,"quote":"x"}]}`),
		"unknown level":  openaitest.Text(`{"actions":[{"index":0,"level":"maybe","quote":"set the priority to P1"},{"index":1,"level":"maybe"}]}`),
		"http 500":       {Status: 500},
		"timeout":        {Delay: 2 * time.Second, Text: `{"actions":[{"index":0,"level":"explicit","quote":"set the priority to P1"}]}`},
		"no choices":     {NoChoices: true},
		"only index 7":   openaitest.Text(`{"actions":[{"index":7,"level":"explicit","quote":"set the priority to P1"}]}`),
		"refused":        {Status: 200, Text: ""},
		"repeated index": openaitest.Text(`{"actions":[{"index":0,"level":"needs_confirmation"},{"index":0,"level":"explicit","quote":"set the priority to P1"}]}`),
	} {
		c, llm := classifier(t, func(openaitest.Request) openaitest.Response { return resp })
		vs := c.Classify(t.Context(), nil, conv, two)
		if levels(vs) != "needs_confirmation,needs_confirmation" {
			t.Errorf("%s: verdicts %s", name, levels(vs))
		}
		if n := len(llm.Requests()); n != 1 {
			t.Errorf("%s: %d requests, want exactly 1", name, n)
		}
	}
	// An answer covering index 0 of two: index 1 needs confirmation.
	c, _ := classifier(t, func(openaitest.Request) openaitest.Response {
		return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"set the priority to P1"}]}`)
	})
	if got := levels(c.Classify(t.Context(), nil, conv, two)); got != "explicit,needs_confirmation" {
		t.Errorf("partial answer: %s", got)
	}
}

// An endpoint that rejects the JSON schema gets the same request once
// without it, and is remembered.
func TestSchemaRejectedFallsBackOnce(t *testing.T) {
	c, llm := classifier(t, func(r openaitest.Request) openaitest.Response {
		if len(r.ResponseFormat) > 0 && string(r.ResponseFormat) != "null" {
			return openaitest.Response{Status: 400, Body: `{"error":{"message":"response_format json_schema is not supported"}}`}
		}
		return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"set the priority to P1"}]}`)
	})
	if got := levels(c.Classify(t.Context(), nil, conv, two[:1])); got != "explicit" {
		t.Errorf("after fallback: %s", got)
	}
	c.Classify(t.Context(), nil, conv, two[:1])
	if n := len(llm.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (rejected, retried, then plain only)", n)
	}
}

// The classifier is told today's date, so that it can check "next Friday"
// against the date an action sets (found in a play-test: without it, a
// careful classifier could not).
// A quote that holds a no or a not is no order, so the classifier is
// told to quote the ask alone. Played, "ink isnt actually urgent anymore,
// take that off" was quoted whole, and the label waited for a tap.
func TestToldToQuoteTheAskAlone(t *testing.T) {
	llm := openaitest.New(t)
	llm.Handle(func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) })
	c := confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf-model", Lexicon: formatting.Words, Now: func() time.Time { return t0 }}, slog.New(slog.DiscardHandler))
	c.Classify(t.Context(), nil, conv, two)
	if sys := llm.Requests()[0].System(); !strings.Contains(sys, `in "it isn't urgent any more, take that off" quote "take that off"`) {
		t.Errorf("the classifier was not told to quote the ask alone:\n%s", sys)
	}
	// An answer that turns items down is the exception: its no decides.
	if sys := llm.Requests()[0].System(); !strings.Contains(sys, `an answer to proposals that turns some down ("yes to 1, not 2") is quoted whole`) {
		t.Errorf("the classifier was not told to quote a mixed answer whole:\n%s", sys)
	}
}

func TestToldToday(t *testing.T) {
	llm := openaitest.New(t)
	llm.Handle(func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) })
	c := confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf-model", Lexicon: formatting.Words, Now: func() time.Time { return t0 }}, slog.New(slog.DiscardHandler))
	c.Classify(t.Context(), nil, conv, two)
	if sys := llm.Requests()[0].System(); !strings.Contains(sys, "Today is Wednesday, 2026-03-11") {
		t.Errorf("the classifier was not told today's date:\n%s", sys)
	}
}

// In the small hours the classifier reads "tomorrow" as the agent does:
// played, the agent set 09:00 of the day just begun, and the classifier,
// reading the day after, asked for a tap on what the person had asked.
func TestToldTheSmallHours(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		want bool
	}{{time.Date(2026, 12, 2, 0, 30, 0, 0, time.UTC), true}, {time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC), false}} {
		llm := openaitest.New(t)
		llm.Handle(func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) })
		c2 := confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf-model", Lexicon: formatting.Words, Now: func() time.Time { return c.at }}, slog.New(slog.DiscardHandler))
		c2.Classify(t.Context(), nil, conv, two)
		if got := strings.Contains(llm.Requests()[0].System(), nod.SmallHoursNote+" Read their words so."); got != c.want {
			t.Errorf("at %s UTC the classifier is told the small hours: %v, want %v", c.at.Format("15:04"), got, c.want)
		}
	}
}

// An explicit verdict counts only from words that can ask for the action:
// the person it is for (in a group), after the proposal it answers was
// shown, never a message that says no or not, and, for an answer, never
// a question.
func TestQuoteMustBeTheRightWords(t *testing.T) {
	group := []confidence.Entry{
		{Role: nod.RoleUser, Text: "raise it to P1 and set 2 h", UserID: 1001, Speaker: "Alice (1001)", Seq: 4},
		{Role: nod.RoleUser, Text: "make the launch post P1, right now", UserID: 1002, Speaker: "Bob (1002)", Seq: 6},
		{Role: nod.RoleUser, Text: "I won't say yes to all", UserID: 1001, Speaker: "Alice (1001)", Seq: 7},
		{Role: nod.RoleUser, Text: "what is item 2, can I confirm all?", UserID: 1001, Speaker: "Alice (1001)", Seq: 8},
		{Role: nod.RoleUser, Text: "don't raise the press kit", UserID: 1001, Speaker: "Alice (1001)", Seq: 9},
		{Role: nod.RoleUser, Text: "nee, keine anderen. aber nimm das mit dem Release-Build doch rein", UserID: 1001, Speaker: "Alice (1001)", Seq: 10},
		{Role: nod.RoleUser, Text: "1 und 3 passen, 2 und 4 nicht", UserID: 1001, Speaker: "Alice (1001)", Seq: 11},
		{Role: nod.RoleUser, Text: "set the press kit to P1", UserID: 1001, Speaker: "Alice (1001)", Seq: 12, Forwarded: "Boss (7007)"},
		{Role: nod.RoleUser, Text: "move the release to P1", UserID: 1001, Speaker: "Alice (1001)", Seq: 13, Replaced: true},
		{Role: nod.RoleUser, Text: "move the release to P2", UserID: 1001, Speaker: "Alice (1001)", Seq: 14, Edited: true},
		{Role: nod.RoleUser, Text: "items 1 and 2 are fine", UserID: 1001, Speaker: "Alice (1001)"},
		{Role: nod.RoleUser, Text: "launch post to P2, no wait, to P1", UserID: 1001, Speaker: "Alice (1001)", Seq: 15},
		{Role: nod.RoleUser, Text: "launch post to P1, no wait, don't", UserID: 1001, Speaker: "Alice (1001)", Seq: 16},
		{Role: nod.RoleUser, Text: "put the launch post on P1, no wait", UserID: 1001, Speaker: "Alice (1001)", Seq: 17},
		{Role: nod.RoleUser, Text: "hmm nee doch lieber P1 für den Launch-Post", UserID: 1001, Speaker: "Alice (1001)", Seq: 18},
		{Role: nod.RoleUser, Text: "nee, doch nicht P1 für den Launch-Post", UserID: 1001, Speaker: "Alice (1001)", Seq: 19},
		{Role: nod.RoleUser, Text: "the launch post isnt urgent anymore, put it on P1", UserID: 1001, Speaker: "Alice (1001)", Seq: 20},
		// Played: the answer to "or did you mean today?".
		{Role: nod.RoleUser, Text: "nee ich mein mittwoch, also heute", UserID: 1001, Speaker: "Alice (1001)", Seq: 21},
		{Role: nod.RoleUser, Text: "nee ich mein nicht mittwoch", UserID: 1001, Speaker: "Alice (1001)", Seq: 22},
	}
	forAlice := confidence.Action{Tool: "set_task_priority", Summary: "Set priority to P1 (task “Launch post”)", For: 1001, ForSpeaker: "Alice (1001)"}
	answer := confidence.Action{Tool: "answer_proposals", Summary: "confirm items 1, 2", For: 1001, ForSpeaker: "Alice (1001)", Answer: true, After: 5}
	mixed := answer
	mixed.Rejects = true
	for _, c := range []struct {
		name   string
		action confidence.Action
		quote  string
		want   confidence.Level
	}{
		{"another member's words", forAlice, "make the launch post P1, right now", confidence.NeedsConfirmation},
		{"a negation, quoted in part", forAlice, "raise the press kit", confidence.NeedsConfirmation},
		{"the request the set came from", answer, "raise it to P1 and set 2 h", confidence.NeedsConfirmation},
		{"a negation as an answer", answer, "yes to all", confidence.NeedsConfirmation},
		{"a question as an answer", answer, "can I confirm all", confidence.NeedsConfirmation},
		{"an answer after the set", answer, "items 1 and 2 are fine", confidence.Explicit},
		{"the person's own request", forAlice, "raise it to P1", confidence.Explicit},
		{"a no that answers something else", forAlice, "aber nimm das mit dem Release-Build doch rein", confidence.Explicit},
		{"a no that rejects items", mixed, "1 und 3 passen, 2 und 4 nicht", confidence.Explicit},
		{"a no without rejected items", answer, "1 und 3 passen, 2 und 4 nicht", confidence.NeedsConfirmation},
		{"a forwarded message", forAlice, "set the press kit to P1", confidence.NeedsConfirmation},
		{"words edited away", forAlice, "move the release to P1", confidence.NeedsConfirmation},
		{"the edit's own words", forAlice, "move the release to P2", confidence.Explicit},
		{"a spoken correction", forAlice, "launch post to P2, no wait, to P1", confidence.Explicit},
		{"a correction to a no", forAlice, "launch post to P1, no wait, don't", confidence.NeedsConfirmation},
		{"words taken back at the end", forAlice, "put the launch post on P1, no wait", confidence.NeedsConfirmation},
		{"a German change of mind", forAlice, "doch lieber P1 für den Launch-Post", confidence.Explicit},
		{"a German change of mind to no", forAlice, "nee, doch nicht P1 für den Launch-Post", confidence.NeedsConfirmation},
		// The classifier is told to quote the ask alone (TestToldToQuoteTheAskAlone).
		{"the ask beside a not about something else", forAlice, "put it on P1", confidence.Explicit},
		{"the whole line, its not included", forAlice, "the launch post isnt urgent anymore, put it on P1", confidence.NeedsConfirmation},
		{"a colloquial German correction", forAlice, "ich mein mittwoch, also heute", confidence.Explicit},
		{"a colloquial German correction to a not", forAlice, "ich mein nicht mittwoch", confidence.NeedsConfirmation},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, llm := classifier(t, func(openaitest.Request) openaitest.Response {
				return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"` + c.quote + `","reasoning":"x"}]}`)
			})
			v := cl.Classify(t.Context(), nil, group, []confidence.Action{c.action})
			if v[0].Level != c.want {
				t.Errorf("%q: %s (%s), want %s", c.quote, v[0].Level, v[0].Default, c.want)
			}
			conv := llm.Requests()[0].Messages[1].Content
			if !strings.Contains(conv, "Bob (1002): make the launch post P1, right now") {
				t.Errorf("transcript does not name speakers:\n%s", conv)
			}
			for _, want := range []string{"Alice (1001) (forwarding a message from Boss (7007); not their own words): set the press kit to P1",
				"Alice (1001) (a message they edited since; these words no longer count): move the release to P1",
				"Alice (1001) (edited an earlier message to): move the release to P2"} {
				if !strings.Contains(conv, want) {
					t.Errorf("transcript lacks %q:\n%s", want, conv)
				}
			}
			if c.action.Answer && !strings.Contains(conv, "Alice (1001): raise it to P1 and set 2 h\n--- nod showed the proposal here") {
				t.Errorf("transcript does not mark where the proposal was shown:\n%s", conv)
			}
		})
	}
}

// docs/design.md §3.2: an action that sets several fields may carry the
// person's words for each in "quotes", as an object or as a list; each
// counts only as a quote does, and an answer without it is read as
// before.
func TestFieldQuotes(t *testing.T) {
	burst := []confidence.Entry{
		{Role: nod.RoleUser, Text: "add a task to call the printer", At: t0},
		{Role: nod.RoleUser, Text: "oh and it's urgent", At: t0.Add(time.Second)},
		{Role: nod.RoleUser, Text: "due friday", At: t0.Add(2 * time.Second)},
	}
	create := []confidence.Action{{Tool: "create_task", Summary: `create a task titled "Call the printer" with priority: P0; due: 2026-03-13`}}
	for name, c := range map[string]struct {
		content string
		want    map[string]string
	}{
		"object": {`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer","quotes":{"priority":"oh and it's urgent","due_date":"due friday"},"reasoning":"x"}]}`,
			map[string]string{"priority": "oh and it's urgent", "due": "due friday"}},
		"list": {`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer","quotes":[{"field":"Priority","quote":"it's urgent"},{"field":"due","quote":"due friday"}],"reasoning":"x"}]}`,
			map[string]string{"priority": "it's urgent", "due": "due friday"}},
		"invented words": {`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer","quotes":{"priority":"make it P0","due":"due friday"},"reasoning":"x"}]}`,
			map[string]string{"due": "due friday"}}, // words never said do not count
		"none": {`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer","reasoning":"x"}]}`, map[string]string{}},
		"not explicit": {`{"actions":[{"index":0,"level":"needs_confirmation","quote":"","quotes":{"priority":"oh and it's urgent"},"reasoning":"x"}]}`,
			map[string]string{}},
		"malformed quotes": {`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer","quotes":"urgent","reasoning":"x"}]}`,
			map[string]string{}},
	} {
		t.Run(name, func(t *testing.T) {
			cl, _ := classifier(t, func(openaitest.Request) openaitest.Response { return openaitest.Text(c.content) })
			v := cl.Classify(t.Context(), nil, burst, create)[0]
			if name != "not explicit" && !v.Explicit() {
				t.Fatalf("verdict %+v, want explicit", v)
			}
			got := map[string]string{}
			for f, q := range v.Fields {
				got[f] = q.Quote
				if q.At.IsZero() {
					t.Errorf("field %s: no time for its quote", f)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("field quotes = %v, want %v", got, c.want)
			}
		})
	}
}

// docs/design.md §3.3: a question decides nothing, whatever change it is
// quoted for, and a polite request phrased as a question stays a
// request; a polite opener around a question about something does not
// make it one. Each message is quoted whole, as a yes-man classifier
// quotes it, for a change that no answer is about.
func TestQuestionsDecideNothing(t *testing.T) {
	raise := confidence.Action{Tool: "set_task_priority", Summary: "task “Launch”: priority: P2 → P0"}
	for _, c := range []struct {
		said  string
		quote string // "" for the whole message
		want  confidence.Level
	}{
		// Questions about something.
		{said: "what does the description of the launch task say?", want: confidence.NeedsConfirmation},
		{said: "what does the description of the launch task say?", quote: "the description of the launch task", want: confidence.NeedsConfirmation},
		{said: "why P1?", want: confidence.NeedsConfirmation},
		{said: "is it done?", want: confidence.NeedsConfirmation},
		{said: "what's on my list", want: confidence.NeedsConfirmation},
		{said: "ok so what does the launch task say", want: confidence.NeedsConfirmation},
		{said: "can you tell me what the description says?", want: confidence.NeedsConfirmation},
		{said: "can you tell me what the description says", want: confidence.NeedsConfirmation},
		{said: "could you show me the launch task?", want: confidence.NeedsConfirmation},
		{said: "can you help me with the launch?", want: confidence.NeedsConfirmation},
		{said: "could you set it to P1, what do you think?", quote: "could you set it to P1", want: confidence.NeedsConfirmation},
		{said: "set the launch to P0, ok?", quote: "set the launch to P0", want: confidence.NeedsConfirmation},
		{said: "set the launch to P0, ok? 🙏", quote: "set the launch to P0", want: confidence.NeedsConfirmation},
		{said: "set the launch to P0 🤔?", quote: "set the launch to P0", want: confidence.NeedsConfirmation},
		{said: "could you move it to friday if that works?", want: confidence.NeedsConfirmation},
		{said: "can I confirm all?", want: confidence.NeedsConfirmation},
		{said: "is it done", want: confidence.NeedsConfirmation},
		{said: "should I raise the launch to P0", want: confidence.NeedsConfirmation},
		{said: "soll ich den Launch auf P0 setzen", want: confidence.NeedsConfirmation},
		{said: "I read the launch task. What does it want from me?", want: confidence.NeedsConfirmation},
		{said: "was steht in der Beschreibung vom Launch?", want: confidence.NeedsConfirmation},
		{said: "wann ist der Launch fällig?", want: confidence.NeedsConfirmation},
		{said: "ist das erledigt?", want: confidence.NeedsConfirmation},
		{said: "sag mal, was steht beim Launch", want: confidence.NeedsConfirmation},
		{said: "kannst du mir sagen, was in der Beschreibung steht?", want: confidence.NeedsConfirmation},
		{said: "kannst du mir die Beschreibung zeigen?", want: confidence.NeedsConfirmation},
		{said: "könntest du den Launch auf P0 setzen, wenn das passt?", want: confidence.NeedsConfirmation},
		{said: "can you look at the launch and move it to friday?", want: confidence.NeedsConfirmation},
		// Polite requests.
		{said: "could you set it to P1?", want: confidence.Explicit},
		{said: "could you raise the login bug to P1?", want: confidence.Explicit},
		{said: "can you move it to friday?", want: confidence.Explicit},
		{said: "would you add 'brief support' to the launch plan?", want: confidence.Explicit},
		{said: "will you mark the launch done?", want: confidence.Explicit},
		{said: "can we push the launch to monday?", want: confidence.Explicit},
		{said: "could we make the launch P0?", want: confidence.Explicit},
		{said: "hey, could you please bump the launch to P0?", want: confidence.Explicit},
		{said: "would you mind moving the launch to friday?", want: confidence.Explicit},
		{said: "could you check off the draft?", want: confidence.Explicit},
		{said: "could you raise the launch to P0", want: confidence.Explicit},
		{said: "kannst du den Launch auf P0 setzen?", want: confidence.Explicit},
		{said: "könntest du das auf Freitag verschieben?", want: confidence.Explicit},
		{said: "würdest du 'Support briefen' hinzufügen?", want: confidence.Explicit},
		{said: "magst du das noch eintragen?", want: confidence.Explicit},
		{said: "können Sie den Launch auf P0 setzen?", want: confidence.Explicit},
		{said: "can you move the launch to wed so alice can look at it before", want: confidence.Explicit},
		// A question beside a request, in a sentence of its own.
		{said: "what's on my list? also set the launch to P0", quote: "set the launch to P0", want: confidence.Explicit},
		{said: "set the launch to P0. why was it P2 anyway?", quote: "set the launch to P0", want: confidence.Explicit},
		{said: "setz den Launch auf P0. Warum war der auf P2?", quote: "setz den Launch auf P0", want: confidence.Explicit},
		{said: "setz den Launch am 13.3. auf P0", want: confidence.Explicit},
		{said: "do it, raise the launch to P0", want: confidence.Explicit},
		{said: "ist erledigt, setz den Launch auf P0", want: confidence.Explicit},
		{said: "raise the launch to P0 🙌 whats left for tmrw?", quote: "raise the launch to P0", want: confidence.Explicit},
	} {
		quote := c.quote
		if quote == "" {
			quote = c.said
		}
		t.Run(c.said+"/"+quote, func(t *testing.T) {
			cl, _ := classifier(t, func(openaitest.Request) openaitest.Response {
				q, _ := json.Marshal(quote)
				return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":` + string(q) + `,"reasoning":"x"}]}`)
			})
			conv := []confidence.Entry{{Role: nod.RoleUser, Text: c.said, At: t0}}
			v := cl.Classify(t.Context(), nil, conv, []confidence.Action{raise})[0]
			if v.Level != c.want {
				t.Errorf("%q quoting %q: %s (%s), want %s", c.said, quote, v.Level, v.Default, c.want)
			}
			if c.want == confidence.NeedsConfirmation && v.Default != "a question decides nothing" {
				t.Errorf("why = %q", v.Default)
			}
		})
	}
}

// docs/design.md §3.3: words that say no ask for nothing, for every
// change, also as people type them without an apostrophe.
func TestNegationsTypedQuickly(t *testing.T) {
	raise := confidence.Action{Tool: "set_task_priority", Summary: "task “Launch”: priority: P2 → P0"}
	for _, said := range []string{"I didnt say raise the launch", "shouldnt the launch be P0", "the launch isnt P0 material",
		"neither the launch nor the post", "den Launch nich auf P0"} {
		cl, _ := classifier(t, func(openaitest.Request) openaitest.Response {
			q, _ := json.Marshal(said)
			return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":` + string(q) + `,"reasoning":"x"}]}`)
		})
		v := cl.Classify(t.Context(), nil, []confidence.Entry{{Role: nod.RoleUser, Text: said, At: t0}}, []confidence.Action{raise})[0]
		if v.Explicit() {
			t.Errorf("%q decided a change", said)
		}
	}
}

// A classifier given no words cannot read a quote for a no or a
// question, so no quote counts: it asks the person.
func TestNoLexiconNothingExplicit(t *testing.T) {
	llm := openaitest.New(t)
	llm.Handle(func(openaitest.Request) openaitest.Response {
		return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"set the priority to p1","reasoning":"asked"}]}`)
	})
	c := confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf-model"}, slog.New(slog.DiscardHandler))
	if v := c.Classify(t.Context(), nil, conv, two[:1])[0]; v.Explicit() || v.Default == "" {
		t.Errorf("Classify without words = %+v, want needs_confirmation with a reason", v)
	}
}

// The classifier is always told where the turn starts, as its prompt
// promises: at the first message after an earlier turn's lines, or, with
// none shown, at the first line; at the words nod asked about, when the
// turn answers its question.
func TestToldWhereTheTurnStarts(t *testing.T) {
	c, llm := classifier(t, func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) })
	earlier := append([]confidence.Entry{{Role: nod.RoleUser, Text: "I'm in Berlin", At: t0.Add(-time.Hour), Earlier: true},
		{Role: nod.RoleAssistant, Text: "Berlin it is.", At: t0.Add(-time.Hour), Earlier: true}}, conv...)
	asked := append([]confidence.Entry{{Role: nod.RoleUser, Text: "I'm in Berlin", At: t0.Add(-time.Hour), Earlier: true},
		{Role: nod.RoleUser, Text: "label the coffee urgent", At: t0.Add(-time.Minute), Asked: true},
		{Role: nod.RoleAssistant, Text: "Done. Raise its priority too?", At: t0.Add(-time.Minute), Asked: true}}, conv...)
	groupAsked := slices.Clone(asked)
	groupAsked[1].Speaker = "Bob (43)"
	for _, c2 := range []struct {
		conv []confidence.Entry
		want string
	}{
		{earlier, "This turn starts with the person's message “Tidy up the login task”"},
		{asked, "This turn may answer what nod asked about the person's message “label the coffee urgent”: if it does, that message, nod's question and"},
		// In a group, whose message it was: played, Bob's read as "the
		// person's" when the action was Alice's.
		{groupAsked, "This turn may answer what nod asked about Bob (43)'s message “label the coffee urgent”: if it does, that message, nod's question and the later messages can ask for the actions, each only in the words of the person it is for; if not, only the later messages can."},
		{conv, "No earlier turn is shown: every line below is this turn's"},
	} {
		c.Classify(t.Context(), nil, c2.conv, two)
		reqs := llm.Requests()
		if sys := reqs[len(reqs)-1].System(); !strings.Contains(sys, c2.want) {
			t.Errorf("the classifier was not told where the turn starts (%q):\n%s", c2.want, sys)
		}
	}
}
