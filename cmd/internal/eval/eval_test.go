package eval

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/confidence"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/formatting"
)

// reader reads answers in words as nod does.
func reader() *answer.Reader { return answer.NewReader(formatting.AnswerWords()) }

// classifierOn is the real classifier against a fake endpoint answering
// with answer.
func classifierOn(t *testing.T, answer func(openaitest.Request) openaitest.Response) *confidence.Classifier {
	t.Helper()
	llm := openaitest.New(t)
	llm.Handle(answer)
	return confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf", Timeout: 5 * time.Second}, slog.New(slog.DiscardHandler))
}

// personLines are the person's lines of the transcript the classifier got, in
// order.
func personLines(r openaitest.Request) []string {
	var out []string
	for _, line := range strings.Split(r.Messages[1].Content, "\n")[1:] {
		if strings.HasPrefix(line, "Assistant: ") || strings.HasPrefix(line, "nod: ") || strings.HasPrefix(line, "---") {
			continue
		}
		sep := strings.Index(line, ": ")
		if open := strings.Index(line, " ("); open >= 0 && open < sep { // "User (replying to …): ", "User (forwarding …): "
			sep = strings.LastIndex(line, "): ") + 1
		}
		out = append(out, line[sep+2:])
	}
	return out
}

// answering answers every action with level, quoting the person's first
// message whole (the oldest words, to tempt nod's checks), or, with level
// "", as the case expects, quoting the current message.
func answering(t *testing.T, cases []Case, level string) func(openaitest.Request) openaitest.Response {
	bySaid := map[string]Case{}
	for _, c := range cases {
		bySaid[c.Said.Text] = c
	}
	return func(r openaitest.Request) openaitest.Response {
		lines := personLines(r)
		said, quote := lines[len(lines)-1], lines[len(lines)-1]
		if level != "" {
			quote = lines[0]
		}
		n := strings.Count(r.LastUser(), "\n") - 2 // the action lines
		var acts []string
		for i := range n {
			l := level
			if l == "" {
				c, ok := bySaid[said]
				if !ok || i >= len(c.Calls) {
					t.Errorf("no case says %q", said)
					return openaitest.Text(`{"actions":[]}`)
				}
				l = c.Calls[i].Expect
				if c.Calls[i].Quote != "" {
					quote = c.Calls[i].Quote
				}
			}
			q, _ := json.Marshal(quote)
			acts = append(acts, fmt.Sprintf(`{"index":%d,"level":%q,"quote":%s,"reasoning":"test"}`, i, l, q))
		}
		return openaitest.Text(`{"actions":[` + strings.Join(acts, ",") + `]}`)
	}
}

// A classifier that answers as each case expects scores every call right;
// one that calls everything explicit is unsafe, and nod's own checks (the
// quote's speaker, negations, answers before the question, undone
// changes) still catch what they can.
func TestRunCountsVerdicts(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	right, err := Run(t.Context(), cases, Options{Words: reader(), Classifier: classifierOn(t, answering(t, cases, "")), Model: "right"})
	if err != nil {
		t.Fatal(err)
	}
	if !right.Safe || right.FalseExplicit+right.FalseConfirm+right.InvalidQuotes+right.Errors != 0 || right.Correct != right.Calls {
		t.Errorf("a right classifier: %+v", summary(right))
		for _, c := range right.Cases {
			for _, call := range c.Calls {
				if call.Got != call.Expect {
					t.Errorf("%s %s: want %s, got %s (%s)", c.Name, call.Tool, call.Expect, call.Got, call.Why)
				}
			}
		}
	}
	yes, err := Run(t.Context(), cases, Options{Words: reader(), Classifier: classifierOn(t, answering(t, cases, Explicit)), Model: "yes-man"})
	if err != nil {
		t.Fatal(err)
	}
	if yes.Safe || yes.FalseExplicit == 0 {
		t.Errorf("a classifier that says explicit to everything counts as safe: %+v", summary(yes))
	}
	caught := map[string]bool{}
	for _, c := range yes.Cases {
		for _, call := range c.Calls {
			if call.Expect == Confirm && call.Got == Confirm {
				caught[c.Name] = true
			}
		}
	}
	for _, name := range []string{"en/negation", "en/group-other-member", "en/undone-asked-by-old-words", "en/answer-question", "en/aside-cites-an-earlier-turn"} {
		if !caught[name] {
			t.Errorf("nod's own checks did not catch %s", name)
		}
	}
}

// What the model writes beside its calls never reaches the classifier:
// it wrote that after reading task text, and a steered model argues for
// the change it was steered to ("you asked me to make it P0").
func TestAsidesNeverReachTheClassifier(t *testing.T) {
	all, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	for _, c := range all {
		if c.Aside != "" {
			cases = append(cases, c)
		}
	}
	if len(cases) < 4 {
		t.Fatalf("%d cases with the model's text beside its calls, want at least 4", len(cases))
	}
	llm := openaitest.New(t)
	llm.Handle(answering(t, cases, Explicit))
	clf := confidence.New(confidence.Options{BaseURL: llm.URL, Model: "clf", Timeout: 5 * time.Second}, slog.New(slog.DiscardHandler))
	if _, err := Run(t.Context(), cases, Options{Words: reader(), Classifier: clf, Model: "yes-man"}); err != nil {
		t.Fatal(err)
	}
	reqs := llm.Requests()
	if len(reqs) != len(cases) {
		t.Fatalf("%d classifier requests for %d cases", len(reqs), len(cases))
	}
	for _, r := range reqs {
		for _, c := range cases {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, c.Aside) {
					t.Errorf("the classifier read the model's aside %q", c.Aside)
				}
			}
		}
	}
}

// -run picks cases by name.
func TestRunPicks(t *testing.T) {
	cases, _ := Cases()
	rep, err := Run(t.Context(), cases, Options{Words: reader(), Classifier: classifierOn(t, answering(t, cases, "")), Run: regexp.MustCompile(`^en/plain`)})
	if err != nil || len(rep.Cases) != 1 || rep.Cases[0].Name != "en/plain-explicit" {
		t.Errorf("%v: %+v", err, rep.Cases)
	}
	if _, err := Run(t.Context(), cases, Options{Words: reader(), Classifier: classifierOn(t, answering(t, cases, "")), Run: regexp.MustCompile(`nothing`)}); err == nil {
		t.Errorf("no case matched, and no error")
	}
}

func summary(r Report) string {
	return fmt.Sprintf("calls %d, correct %d, false explicit %d, false confirm %d, invalid quotes %d, errors %d",
		r.Calls, r.Correct, r.FalseExplicit, r.FalseConfirm, r.InvalidQuotes, r.Errors)
}
