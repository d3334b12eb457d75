package formatting_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// The texts of external calls (docs/design.md §16) in both languages: the
// receipt quotes the person, lists the arguments escaped, says nod cannot
// undo it and has no button; a waiting item shows its arguments, a
// destructive one ⚠️; an outcome reports the result, an error, or an
// unknown outcome.
func TestCallTexts(t *testing.T) {
	args := json.RawMessage(`{"text":"buy <b>milk</b> & eggs","tags":["x"]}`)
	item := nod.ChangeItem{N: 1, Tool: "mcp__notebook__add_note", Args: args, Field: nod.FieldCall, After: "mutate", Status: nod.ItemPending, Summary: "notebook › add_note: …"}
	destroy := nod.ChangeItem{N: 2, Tool: "mcp__notebook__delete_note", Args: json.RawMessage(`{"id":3}`), Field: nod.FieldCall, After: "destroy", Status: nod.ItemPending}
	done := nod.ExternalCall{Tool: item.Tool, Args: args, State: nod.CallDone, Result: nod.ExternalResult{Text: "added note 1: <ok>"}}
	failed := nod.ExternalCall{Tool: item.Tool, Args: args, State: nod.CallDone, Result: nod.ExternalResult{Text: "a note needs a text", IsError: true}}
	unknown := nod.ExternalCall{Tool: item.Tool, Args: args, State: nod.CallUnknown}
	for _, tc := range []struct {
		lang                                           string
		receipt, cannot, set, warn, ran, fail, unknown string
	}{
		{"en", "Ran notebook › add_note because you said “put it in my notebook”", "nod cannot undo this", "Run notebook › add_note", "⚠️ Run notebook › delete_note",
			"notebook › add_note ran", "did not succeed", "whether it happened is unknown"},
		{"de", "notebook › add_note ausgeführt, weil du „put it in my notebook“ gesagt hast", "nod kann das nicht rückgängig machen", "notebook › add_note ausführen",
			"⚠️ notebook › delete_note ausführen", "notebook › add_note ausgeführt", "hat nicht geklappt", "unbekannt, ob es geschehen ist"},
	} {
		cv := formatting.For(tc.lang).Changes()
		r := cv.CallReceipt(formatting.Receipt{Item: item, Quote: "put it in my notebook", Call: &done})
		text := formatting.PlainText(r.HTML)
		for _, want := range []string{tc.receipt, tc.cannot, "text = buy <b>milk</b> & eggs", `tags = ["x"]`} {
			if !strings.Contains(text, want) {
				t.Errorf("%s receipt lacks %q:\n%s", tc.lang, want, text)
			}
		}
		if strings.Contains(r.HTML, "<b>milk</b>") || !strings.Contains(r.HTML, "&lt;b&gt;milk&lt;/b&gt; &amp; eggs") {
			t.Errorf("%s receipt does not escape the arguments:\n%s", tc.lang, r.HTML)
		}
		if len(r.Keyboard) != 0 {
			t.Errorf("%s receipt has buttons %v", tc.lang, r.Keyboard)
		}
		set := cv.ChangeSet(formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s", Status: nod.SetPending, UserID: 1, Items: []nod.ChangeItem{item, destroy}}})
		text = formatting.PlainText(set.HTML)
		for _, want := range []string{"🔌 notebook", tc.set, tc.warn, "text = buy <b>milk</b> & eggs", "id = 3"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s set lacks %q:\n%s", tc.lang, want, text)
			}
		}
		if strings.Contains(set.HTML, "<b>milk</b>") {
			t.Errorf("%s set does not escape the arguments:\n%s", tc.lang, set.HTML)
		}
		for _, c := range []struct {
			call nod.ExternalCall
			want string
		}{{done, tc.ran}, {failed, tc.fail}, {unknown, tc.unknown}} {
			m := cv.CallOutcome(c.call)
			if text := formatting.PlainText(m.HTML); !strings.Contains(text, c.want) {
				t.Errorf("%s outcome of a %s call lacks %q:\n%s", tc.lang, c.call.State, c.want, text)
			}
		}
		if text := formatting.PlainText(cv.CallOutcome(done).HTML); !strings.Contains(text, "added note 1: <ok>") {
			t.Errorf("%s outcome lacks the result:\n%s", tc.lang, text)
		}
		lost := nod.ExternalCall{Tool: item.Tool, Args: args, State: nod.CallDone, Err: "connection reset"}
		for _, m := range []formatting.Message{cv.CallReceipt(formatting.Receipt{Item: item, Quote: "q", Call: &lost}), cv.CallOutcome(lost)} {
			if text := formatting.PlainText(m.HTML); !strings.Contains(text, tc.unknown) || !strings.Contains(text, "connection reset") {
				t.Errorf("%s report of a call that gave no answer:\n%s", tc.lang, text)
			}
		}
		notSent := nod.ExternalCall{Tool: item.Tool, Args: args, State: nod.CallDone, Err: "MCP tool unavailable", NotSent: true}
		if text := formatting.PlainText(cv.CallOutcome(notSent).HTML); !strings.Contains(text, tc.fail) || strings.Contains(text, tc.unknown) {
			t.Errorf("%s outcome of a call never sent:\n%s", tc.lang, text)
		}
		if text := formatting.PlainText(cv.CallReceipt(formatting.Receipt{Item: item, Quote: "q", Call: &notSent}).HTML); strings.Contains(text, tc.ran) || strings.Contains(text, "Ran ") || strings.Contains(text, tc.unknown) || !strings.Contains(text, tc.fail) {
			t.Errorf("%s receipt of a call never sent:\n%s", tc.lang, text)
		}
		fr := cv.CallReceipt(formatting.Receipt{Item: item, Quote: "put it in my notebook", Call: &failed})
		if text := formatting.PlainText(fr.HTML); !strings.Contains(text, tc.fail) || strings.Contains(text, tc.cannot) {
			t.Errorf("%s receipt of a failed call:\n%s", tc.lang, text)
		}
	}
}

// An audit line names a call by its service, tool and first arguments.
func TestCallAuditLine(t *testing.T) {
	a := nod.AuditEntry{Tool: "mcp__notebook__add_note", Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "add it",
		Args: json.RawMessage(`{"server":"notebook","tool":"add_note","arguments":{"text":"buy milk"},"result":"added note 1"}`)}
	m := formatting.For("en").Audit([]nod.AuditEntry{a}, nil, nil)
	if text := formatting.PlainText(m.HTML); !strings.Contains(text, "notebook › add_note (text = buy milk)") {
		t.Errorf("audit line:\n%s", text)
	}
}
