package confidence_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
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
	llm.Handler = answer
	return confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf-model", Timeout: 500 * time.Millisecond}, slog.New(slog.DiscardHandler)), llm
}

func levels(vs []confidence.Verdict) string {
	var out []string
	for _, v := range vs {
		out = append(out, string(v.Level))
	}
	return strings.Join(out, ",")
}

// K4, K2: the request's model, no tools, the transcript and the numbered
// action list last.
func TestRequestShape(t *testing.T) {
	c, llm := classifier(t, func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) })
	c.Classify(t.Context(), conv, two)
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

// K6, K8: answers that count as explicit, and quotes that do not.
func TestExplicitAnswers(t *testing.T) {
	for name, content := range map[string]string{
		"plain":        `{"actions":[{"index":0,"level":"explicit","quote":"set the priority to p1","reasoning":"asked"}]}`,
		"upper":        `{"actions":[{"index":0,"level":"EXPLICIT","quote":"set the  priority to P1","reasoning":"asked"}]}`,
		"fenced":       "Here you go:\n```json\n{\"actions\":[{\"index\":0,\"level\":\"explicit\",\"quote\":\"Please set the priority\"}]}\n```",
		"no reasoning": `{"actions":[{"index":0,"level":"explicit","quote":"priority to P1!"}]}`,
	} {
		c, _ := classifier(t, func(openaitest.Request) openaitest.Response { return openaitest.Text(content) })
		vs := c.Classify(t.Context(), conv, two[:1])
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
		if v := c.Classify(t.Context(), conv, two[:1])[0]; v.Explicit() {
			t.Errorf("%s: quote %q accepted", name, quote)
		}
	}
}

// K7: every failure leaves the actions needing confirmation, after one
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
		vs := c.Classify(t.Context(), conv, two)
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
	if got := levels(c.Classify(t.Context(), conv, two)); got != "explicit,needs_confirmation" {
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
	if got := levels(c.Classify(t.Context(), conv, two[:1])); got != "explicit" {
		t.Errorf("after fallback: %s", got)
	}
	c.Classify(t.Context(), conv, two[:1])
	if n := len(llm.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (rejected, retried, then plain only)", n)
	}
}

// The classifier is told today's date, so that it can check "next Friday"
// against the date an action sets (found in a play-test: without it, a
// careful classifier could not).
func TestToldToday(t *testing.T) {
	llm := openaitest.New(t)
	llm.Handler = func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) }
	c := confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf-model", Now: func() time.Time { return t0 }}, slog.New(slog.DiscardHandler))
	c.Classify(t.Context(), conv, two)
	if sys := llm.Requests()[0].System(); !strings.Contains(sys, "Today is Wednesday, 2026-03-11") {
		t.Errorf("the classifier was not told today's date:\n%s", sys)
	}
}
