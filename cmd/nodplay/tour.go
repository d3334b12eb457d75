package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// The guided tour's models: a scripted stand-in for an LLM that answers
// nod's real requests from what they show (the tasks in the prompt, the
// person's words, the tool results), as a capable model would for the
// tour's steps, and says so when asked anything else.
const (
	tourModel           = "tour"
	tourClassifierModel = "tour-classifier"
)

// step is one stop of the tour, as the page lists it.
type step struct {
	Title string
	Text  string
	Try   []string // messages to send; a leading "↩ " means: as a reply to nod's proposals
}

// tourSteps walks through what nod is for: an explicit change with Undo,
// a change set answered by taps and in words, a rejection with a reason,
// a typed delete, and /review.
var tourSteps = []step{
	{"Ask for a change", "Clear requests run at once: nod shows what changed, why it did not ask, and an Undo button.",
		[]string{"raise the login bug to P1"}},
	{"Undo it", "Tap ↩️ Undo on the receipt. Undo takes back exactly that change.", nil},
	{"Let nod suggest", "What nod infers waits for you: one message with a numbered proposal per change.",
		[]string{"help me plan the launch"}},
	{"Decide item by item", "Tap ✓ 1 to apply the first item, ✗ 2 to reject the second. The message is edited in place.", nil},
	{"Say why", "After rejecting, reply to the proposals message with your reason; nod remembers it.",
		[]string{"↩ we already did that last week"}},
	{"Answer in words", "Decide the rest in plain words, as a reply or not.", []string{"yes to 3, no to 4"}},
	{"Delete, carefully", "Deleting always asks: nod wants the task's title typed back.",
		[]string{"delete the release notes task", "Write release notes"}},
	{"Ask for a review", "/review lets nod look over your tasks on its own; all it suggests waits for you.", []string{"/review"}},
	{"Other tools, same rules", "nod's agent also uses tools of other servers (MCP), here a demo notebook: your clear words add a note at once, with a receipt nod cannot undo; deleting a note always waits for your ✓.",
		[]string{"note: the plumber comes on Monday", "delete the plumber note"}},
}

// tour answers agent and classifier requests for the tour.
type tour struct {
	now func() time.Time
}

func (t tour) answer(r openaitest.Request) openaitest.Response {
	if r.Model == tourClassifierModel {
		return t.classify(r)
	}
	return t.agent(r)
}

// taskLine is how nod's prompt lists a task: - <id> "<title>" ...
var taskLine = regexp.MustCompile(`(?m)^- (\S+) "((?:[^"\\]|\\.)*)"`)

// tasks returns the prompt's tasks, title → id.
func tasks(r openaitest.Request) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role != "system" && m.Role != "developer" && m.Role != "user" {
			continue
		}
		for _, g := range taskLine.FindAllStringSubmatch(m.Content, -1) {
			var title string
			if json.Unmarshal([]byte(`"`+g[2]+`"`), &title) == nil {
				out[title] = g[1]
			}
		}
	}
	return out
}

// find returns the id and title of the task whose title shares a word of
// four letters or more with words, as a person names a task loosely.
func find(ts map[string]string, words string) (id, title string) {
	words = strings.ToLower(words)
	best := 0
	for t, i := range ts {
		n := 0
		for _, w := range strings.Fields(strings.ToLower(t)) {
			if len(w) >= 4 && strings.Contains(words, w) {
				n++
			}
		}
		if n > best || n == best && n > 0 && t < title {
			best, id, title = n, i, t
		}
	}
	return id, title
}

var priority = regexp.MustCompile(`(?i)\bp([0-3])\b`)

// agent plays the task model: one tour step per request of the person.
func (t tour) agent(r openaitest.Request) openaitest.Response {
	last := r.Messages[len(r.Messages)-1]
	if last.Role == "tool" {
		return t.afterTools(r)
	}
	ts := tasks(r)
	said := strings.ToLower(r.LastUser())
	if strings.Contains(r.System(), "sent /review") || strings.Contains(said, "sent /review") {
		return t.review(ts)
	}
	call := func(name string, args map[string]any) openaitest.ToolCall {
		return openaitest.Call(fmt.Sprintf("call_%d", len(r.Messages)), name, args)
	}
	switch {
	case strings.Contains(said, "note") && !strings.Contains(said, "task") && slices.Contains(r.Tools, notebookAdd):
		if strings.Contains(said, "delete") {
			return openaitest.Calls(call(notebookList, map[string]any{})) // to find its id
		}
		if _, text, ok := strings.Cut(r.LastUser(), ":"); ok {
			return openaitest.Calls(call(notebookAdd, map[string]any{"text": strings.TrimSpace(text)}))
		}
	case strings.Contains(said, "delete") || strings.Contains(said, "remove"):
		if id, _ := find(ts, said); id != "" {
			return openaitest.Calls(call("delete_task", map[string]any{"task_id": id}))
		}
	case priority.MatchString(said):
		if id, _ := find(ts, said); id != "" {
			p := "P" + priority.FindStringSubmatch(said)[1]
			return openaitest.Calls(call("set_task_priority", map[string]any{"task_id": id, "priority": p}))
		}
	case strings.Contains(said, "plan"):
		if id, _ := find(ts, said); id != "" {
			due := t.now().AddDate(0, 0, 26).Format("2006-01-02")
			return openaitest.Response{Text: "Here is a plan for the launch.", ToolCalls: []openaitest.ToolCall{
				call("add_multiple_checklist_items", map[string]any{"task_id": id, "items": []map[string]string{
					{"title": "Draft announcement"}, {"title": "Update pricing page"}, {"title": "Brief support"}}}),
				openaitest.Call(fmt.Sprintf("call_%d_due", len(r.Messages)), "update_task_due_date", map[string]any{"task_id": id, "due_date": due}),
			}}
		}
	}
	return openaitest.Text("I am the guided tour's scripted model, so I only know the tour's steps: try “raise the login bug to P1”, " +
		"“help me plan the launch”, “delete the release notes task” or /review. For a real conversation, start nodplay with OPENAI_BASE_URL set.")
}

// afterTools ends a turn with a short reply on what the tools said.
func (t tour) afterTools(r openaitest.Request) openaitest.Response {
	var results []string
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
		results = append(results, r.Messages[i].Content)
	}
	all := strings.Join(results, "\n")
	if call, ok := lastCall(r); ok && call.Name == notebookList {
		if id, ok := noteFor(all, strings.ToLower(r.LastUser())); ok {
			return openaitest.Calls(openaitest.Call(fmt.Sprintf("call_%d", len(r.Messages)), notebookDelete, map[string]any{"id": id}))
		}
		return openaitest.Text("I found no such note.")
	}
	switch {
	case strings.Contains(all, "typed confirmation"):
		return openaitest.Text("Once you confirm, it goes to the trash; /trash brings it back for 30 days.")
	case strings.Contains(all, "Proposal queued"):
		return openaitest.Text("Tap ✓ or ✗ below for each.")
	case strings.Contains(all, `"error"`):
		return openaitest.Text("That did not work: " + all)
	}
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, c := range r.Messages[i].ToolCalls {
			var a struct{ Priority string }
			if c.Name == "set_task_priority" && json.Unmarshal([]byte(c.Arguments), &a) == nil {
				return openaitest.Text("Raised it to " + a.Priority + ".")
			}
		}
	}
	return openaitest.Text("Done.")
}

// The demo notebook's tools, as the agent is offered them.
const (
	notebookList   = "mcp__notebook__list_notes"
	notebookAdd    = "mcp__notebook__add_note"
	notebookDelete = "mcp__notebook__delete_note"
)

// lastCall is the tool call the latest tool results answer.
func lastCall(r openaitest.Request) (openaitest.ToolCall, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if cs := r.Messages[i].ToolCalls; len(cs) > 0 {
			return cs[len(cs)-1], true
		}
	}
	return openaitest.ToolCall{}, false
}

// noteFor finds, in list_notes' result as nod gives it to the agent
// (its structured content, or the text it also carries), the note that
// shares a word of four letters or more with words.
func noteFor(result, words string) (int, bool) {
	var res struct {
		Result     string          `json:"result"`
		Structured json.RawMessage `json:"structured_content"`
	}
	if json.Unmarshal([]byte(result), &res) != nil {
		return 0, false
	}
	var list struct {
		Notes []struct {
			ID   int    `json:"id"`
			Text string `json:"text"`
		} `json:"notes"`
	}
	if json.Unmarshal(res.Structured, &list) != nil && json.Unmarshal([]byte(res.Result), &list) != nil {
		return 0, false
	}
	for _, n := range list.Notes {
		for _, w := range strings.Fields(strings.ToLower(n.Text)) {
			if len(w) >= 4 && strings.Contains(words, w) {
				return n.ID, true
			}
		}
	}
	return 0, false
}

// review proposes an estimate for each task that has none, as a look over
// the tasks would.
func (t tour) review(ts map[string]string) openaitest.Response {
	var calls []openaitest.ToolCall
	for title, id := range ts {
		if strings.Contains(strings.ToLower(title), "login") {
			calls = append(calls, openaitest.Call("call_review_"+id, "update_task_estimate", map[string]any{"task_id": id, "estimate_minutes": 120}),
				openaitest.Call("call_review_s_"+id, "set_task_status", map[string]any{"task_id": id, "status": "IN_PROGRESS"}))
		}
	}
	if len(calls) == 0 {
		return openaitest.Text("Your tasks look fine to me.")
	}
	return openaitest.Response{Text: "Two suggestions for the login bug.", ToolCalls: calls}
}

var (
	actionLine = regexp.MustCompile(`(?m)^(\d+)\. (\w+): (.*)$`)
	userLine   = regexp.MustCompile(`(?m)^User(?: \([^)]*\))?: (.*)$`)
)

// classify plays the classifier: an action is explicit when the person's
// latest words name what it sets; the quote is their whole message.
func (t tour) classify(r openaitest.Request) openaitest.Response {
	var said string
	for _, m := range r.Messages {
		if m.Role == "user" {
			if us := userLine.FindAllStringSubmatch(m.Content, -1); len(us) > 0 {
				said = us[len(us)-1][1]
			}
		}
	}
	type verdict struct {
		Index     int    `json:"index"`
		Level     string `json:"level"`
		Quote     string `json:"quote,omitempty"`
		Reasoning string `json:"reasoning"`
	}
	out := struct {
		Actions []verdict `json:"actions"`
	}{Actions: []verdict{}}
	lower := strings.ToLower(said)
	for _, a := range actionLine.FindAllStringSubmatch(r.LastUser(), -1) {
		v := verdict{Level: "needs_confirmation", Reasoning: "the person did not name this change"}
		fmt.Sscan(a[1], &v.Index)
		if w := newValue(a[2], a[3]); a[2] == "answer_proposals" || w != "" && strings.Contains(lower, w) {
			v = verdict{Index: v.Index, Level: "explicit", Quote: said, Reasoning: "the person's words name this change"}
		}
		out.Actions = append(out.Actions, v)
	}
	b, _ := json.Marshal(out)
	return openaitest.Text(string(b))
}

// newValue is the value an action's summary says it sets, as a person
// would write it: "P1", "in progress", a new title.
func newValue(tool, summary string) string {
	var v string
	if strings.HasPrefix(tool, "mcp__") { // notebook › add_note: text = "…"
		_, v, _ = strings.Cut(summary, `text = "`)
		v = strings.TrimSuffix(v, `"`)
	} else if tool == "create_task" {
		_, v, _ = strings.Cut(summary, "titled ")
		v, _, _ = strings.Cut(strings.TrimPrefix(v, `"`), `"`)
	} else if i := strings.LastIndex(summary, "→ "); i >= 0 { // "priority: P3 → P1"
		v, _, _ = strings.Cut(strings.Trim(summary[i+len("→ "):], `"`), `" (`)
		v = strings.TrimSuffix(v, " minutes")
	} else if i := strings.LastIndex(summary, " to "); i >= 0 && tool != "add_multiple_checklist_items" {
		v = strings.Trim(strings.TrimSuffix(summary[i+4:], " minutes"), `"`)
	}
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(v), "_", " "))
}
