// Package eval measures a classifier model on nod's own cases: each case
// is a short conversation played through the agent with the calls a model
// proposed, and what nod then does with each call (apply it at once, or
// ask) is compared with what the case expects. The calls are scripted; the
// classifier is the operator's.
//
// Answer cases (Decided set) answer the change set the turn before
// proposed in words, and compare what became of each of its items with
// what the words decide: nod reads the answer itself first, as the bot
// does, and only an answer it cannot read whole goes to the agent.
package eval

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Verdicts a case expects of a call.
const (
	Explicit = "explicit"           // nod may apply it at once
	Confirm  = "needs_confirmation" // nod must ask
)

// Case is one conversation and the calls proposed in its last turn.
type Case struct {
	Name  string `json:"name"`
	About string `json:"about"` // what the case checks, for the report
	Lang  string `json:"lang"`
	// Group plays the case in a group chat of alice and bob, where every
	// line names its speaker.
	Group bool   `json:"group,omitempty"`
	Tasks []Task `json:"tasks"`
	// Before are the turns that lead up to the one evaluated: what was
	// said, proposed, applied, decided and undone.
	Before []Turn `json:"before,omitempty"`
	// Said is the person's message of the evaluated turn, and Calls what
	// the agent's model proposes in it, each with the verdict expected.
	Said  Message `json:"said"`
	Calls []Call  `json:"calls"`
	// Aside is what the model writes beside those calls: it may argue for
	// them ("you asked for P0"), as a model steered by task text does.
	Aside string `json:"aside,omitempty"`
	// Decided makes an answer case: Said answers the set the turn before
	// proposed, and this is what should become of it: what the words
	// decide, as far as the model's calls pass it on (a call that
	// misreads them must decide nothing). Calls are what the model does
	// with an answer nod cannot read itself; one nod reads whole never
	// reaches the model, and takes none.
	Decided *Decided `json:"decided,omitempty"`
}

// Decided is what an answer in words decides of a set: the item numbers
// confirmed and rejected; every other item stays pending.
type Decided struct {
	Confirmed []int `json:"confirmed,omitempty"`
	Rejected  []int `json:"rejected,omitempty"`
}

// Task is a task of the case's chat.
type Task struct {
	ID              string   `json:"id"`
	Title           string   `json:"title"`
	Description     string   `json:"description,omitempty"`
	Status          string   `json:"status,omitempty"`
	Priority        string   `json:"priority,omitempty"`
	EstimateMinutes *int     `json:"estimate_minutes,omitempty"`
	DueDate         string   `json:"due_date,omitempty"`
	Labels          []string `json:"labels,omitempty"`
	Checklist       []string `json:"checklist,omitempty"` // item titles; ids c1, c2, …
}

// Message is a message of the person's (alice, unless From says bob).
type Message struct {
	From string `json:"from,omitempty"`
	Text string `json:"text"`
	// ReplyToSet makes the message a reply to the latest change set's
	// message.
	ReplyToSet bool `json:"reply_to_set,omitempty"`
	// Forwarded makes the message one the person forwarded, first written
	// by the one it names: someone else's words.
	Forwarded string `json:"forwarded,omitempty"`
	// Edit makes the message an edit of the person's message before it.
	Edit bool `json:"edit,omitempty"`
}

// Turn is a turn before the evaluated one.
type Turn struct {
	Said Message `json:"said"`
	// Calls the model made; Applied ones run at once as if the person had
	// asked (their quote is the whole message), the rest are proposed.
	Calls   []Call `json:"calls,omitempty"`
	Applied bool   `json:"applied,omitempty"`
	Reply   string `json:"reply,omitempty"` // the model's text after its calls
	// Then, what the person did after the turn: "undo" what it applied,
	// or decide the set it proposed by its item numbers.
	Undo    bool  `json:"undo,omitempty"`
	Confirm []int `json:"confirm,omitempty"`
	Reject  []int `json:"reject,omitempty"`
}

// Call is a tool call of the model's, with the verdict expected of nod
// when it is the evaluated turn's.
type Call struct {
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Expect string          `json:"expect,omitempty"`
	// Quote, for an explicit call, is the words a right classifier
	// quotes, when not the whole message.
	Quote string `json:"quote,omitempty"`
}

//go:embed cases/*.json
var caseFiles embed.FS

// Cases returns the case set, in file and then file order.
func Cases() ([]Case, error) {
	names, err := fs.Glob(caseFiles, "cases/*.json")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Case
	seen := map[string]bool{}
	for _, n := range names {
		raw, err := caseFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var cs []Case
		if err := json.Unmarshal(raw, &cs); err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(n), err)
		}
		for _, c := range cs {
			if err := c.check(); err != nil {
				return nil, fmt.Errorf("%s: case %q: %w", path.Base(n), c.Name, err)
			}
			if seen[c.Name] {
				return nil, fmt.Errorf("%s: case %q: the name is taken", path.Base(n), c.Name)
			}
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// check reports what makes a case unplayable.
func (c Case) check() error {
	switch {
	case c.Name == "" || strings.TrimSpace(c.Said.Text) == "":
		return fmt.Errorf("a case needs a name and a message")
	case len(c.Calls) == 0 && c.Decided == nil:
		return fmt.Errorf("no calls to evaluate")
	case c.Decided != nil && (len(c.Before) == 0 || len(c.Before[len(c.Before)-1].Calls) == 0):
		return fmt.Errorf("an answer case answers the set its last turn before proposes; it proposes none")
	}
	all := append(said(c.Before), c.Said)
	for i, m := range all {
		switch {
		case m.Edit && (i == 0 || all[i-1].From != m.From):
			return fmt.Errorf("message %d edits no earlier message of its sender's", i+1)
		case m.Edit && m.Forwarded != "":
			return fmt.Errorf("message %d: a forwarded message cannot be edited", i+1)
		}
		if m.From != "" && m.From != "alice" && m.From != "bob" {
			return fmt.Errorf("from %q: alice or bob", m.From)
		}
		if m.From == "bob" && !c.Group {
			return fmt.Errorf("bob speaks only in a group case")
		}
	}
	for i, call := range c.Calls {
		if call.Expect != Explicit && call.Expect != Confirm {
			return fmt.Errorf("call %d expects %q: %s or %s", i, call.Expect, Explicit, Confirm)
		}
	}
	return nil
}

func said(ts []Turn) []Message {
	out := make([]Message, len(ts))
	for i, t := range ts {
		out[i] = t.Said
	}
	return out
}
