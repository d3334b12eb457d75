package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/nodbot/nod/cmd/internal/app"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// nod eval plays its cases against the configured endpoint and classifier
// model: a model that calls everything explicit is reported unsafe, with
// a non-zero exit (ErrUnsafe), the false explicits counted and named; one
// that asks for everything is safe, at the cost of false confirms.
func TestEvalEndToEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	level := "explicit"
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Model != clfM {
			t.Errorf("nod eval asked the real endpoint as the agent: model %s", r.Model)
		}
		n := len(regexp.MustCompile(`(?m)^\d+\. `).FindAllString(r.LastUser(), -1)) // the action lines
		var acts []string
		for i := range n {
			lines := strings.Split(r.Messages[1].Content, "\n")
			last := lines[len(lines)-1]
			quote, _ := json.Marshal(last[strings.LastIndex(last, ": ")+2:])
			acts = append(acts, fmt.Sprintf(`{"index":%d,"level":%q,"quote":%s,"reasoning":"e2e"}`, i, level, quote))
		}
		return openaitest.Text(`{"actions":[` + strings.Join(acts, ",") + `]}`)
	})
	env := func(k string) string { return h.env[k] }
	var out, errb bytes.Buffer
	err := run(t.Context(), []string{"eval"}, env, &out, &errb)
	if !errors.Is(err, app.ErrUnsafe) {
		t.Fatalf("a yes-man classifier: err %v\n%s", err, out.String())
	}
	for _, want := range []string{"en/vague", "← FALSE EXPLICIT", "verdict: NOT SAFE for smart mode: " + clfM} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "[1/") {
		t.Errorf("no progress lines: %q", errb.String())
	}
	// The whole run is kept, and nod serve says at start what it found.
	if e, err := h.db.LastEval(t.Context(), clfM); err != nil || e.FalseExplicit == 0 || e.Cases < 60 {
		t.Errorf("recorded eval: %+v, %v", e, err)
	}
	h.start()
	if !strings.Contains(h.logs.String(), "made false explicits in its last eval") {
		t.Errorf("nod serve did not warn about its classifier's eval:\n%s", h.logs)
	}
	h.stop()

	level = "needs_confirmation"
	out.Reset()
	if err := run(t.Context(), []string{"eval", "-json", "-run", "^en/"}, env, &out, &errb); err != nil {
		t.Fatalf("a cautious classifier: %v", err)
	}
	var rep struct {
		Safe          bool `json:"safe"`
		FalseExplicit int  `json:"false_explicit"`
		FalseConfirm  int  `json:"false_confirm"`
		Cases         []struct{ Name string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("-json: %v\n%s", err, out.String())
	}
	if !rep.Safe || rep.FalseExplicit != 0 || rep.FalseConfirm == 0 || len(rep.Cases) == 0 {
		t.Errorf("a cautious classifier: %+v", rep)
	}
	for _, c := range rep.Cases {
		if !strings.HasPrefix(c.Name, "en/") {
			t.Errorf("-run ^en/ played %s", c.Name)
		}
	}
}
