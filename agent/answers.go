package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/tools"
)

// Answerer decides items of a change set as a person's taps would:
// confirms r.Confirm in order (one transaction), rejects r.Reject with
// r.Reason (one transaction each), passing over items decided before.
// Errors wrap nod.ErrNotFound, nod.ErrForbidden or nod.ErrExpired.
type Answerer interface {
	Answer(ctx context.Context, chatID nod.ChatID, userID nod.UserID, r nod.Reading) (nod.Decided, int, error)
}

// answerCall is an answer_proposals call, validated against its set.
type answerCall struct {
	set     nod.ChangeSet
	confirm []int
	reject  []int
	reason  string
	titles  map[nod.TaskID]string // the titles of the tasks its items change, by id
}

// prepareAnswer validates an answer_proposals call: the set the person
// may decide, open, and items that exist and are pending, each named once.
func (t *turn) prepareAnswer(ctx context.Context, a tools.Args) (*answerCall, error) {
	if t.req.Review {
		return nil, errors.New("answer_proposals passes on the user's own words; a review has none, so it cannot be used here")
	}
	if t.a.answers == nil || t.a.words == nil {
		return nil, errors.New("answer_proposals is not available")
	}
	setID, _, err := a.Str("set", false)
	if err != nil {
		return nil, err
	}
	set, err := t.answerSet(ctx, nod.SetID(strings.TrimSpace(setID)))
	if err != nil {
		return nil, err
	}
	c := &answerCall{set: set}
	if c.confirm, err = numbers(a, "confirm"); err != nil {
		return nil, err
	}
	if c.reject, err = numbers(a, "reject"); err != nil {
		return nil, err
	}
	if c.reason, err = a.Reason(); err != nil {
		return nil, err
	}
	if len(c.confirm)+len(c.reject) == 0 {
		return nil, a.Errorf("confirm", "and reject are both empty: name the items the user decided, as numbered in the proposal")
	}
	for _, n := range slices.Concat(c.confirm, c.reject) {
		it, ok := set.Item(n)
		switch {
		case !ok:
			return nil, fmt.Errorf("proposal %s has no item %d; its items are numbered 1 to %d", set.ID, n, len(set.Items))
		case it.Status == nod.ItemRejected && slices.Contains(c.confirm, n):
			return nil, fmt.Errorf("item %d of proposal %s was rejected; if the user now wants it after all, make the change again with its own tool: it is checked against their words", n, set.ID)
		case it.Status != nod.ItemPending:
			return nil, fmt.Errorf("item %d of proposal %s is already %s", n, set.ID, it.Status)
		case slices.Contains(c.confirm, n) && slices.Contains(c.reject, n):
			return nil, fmt.Errorf("item %d is both confirmed and rejected; name each item once", n)
		}
	}
	var ids []nod.TaskID
	for _, n := range slices.Concat(c.confirm, c.reject) {
		if it, _ := set.Item(n); it.TaskID != "" && !slices.Contains(ids, it.TaskID) {
			ids = append(ids, it.TaskID)
		}
	}
	if len(ids) > 0 {
		// One read for all: an item whose title is not found is named
		// by its summary alone.
		if c.titles, err = t.a.tasks.TaskTitles(ctx, t.req.ChatID, ids); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// refusedByWords says why the person's words of this turn forbid the
// call's confirmations, or returns "": no item that a message of theirs
// turns down, asks about or puts off is confirmed on their words
// (docs/design.md §3.4), whatever the classifier would say. Each message
// is read as nod's own reader reads an answer; forwarded ones too, as
// refusing never decides anything.
func (t *turn) refusedByWords(c *answerCall) string {
	for _, m := range t.msgs {
		if m.Role != nod.RoleUser || m.Replaced || m.UserID != 0 && m.UserID != t.req.UserID {
			continue
		}
		r := t.a.words.Read(m.Content)
		var refused []int
		for _, n := range c.confirm {
			if r.Refuses(n) {
				refused = append(refused, n)
			}
		}
		if len(refused) == 0 {
			continue
		}
		said := strings.Join(strings.Fields(m.Content), " ")
		if r.RefusesAll {
			return fmt.Sprintf("the user's words “%s” turn down, question or put off the proposal as a whole: they say yes to none of its items. "+
				"Nothing of this call was decided or shown to the user; do not confirm anything on these words.", cut(said))
		}
		return fmt.Sprintf("the user's words “%s” do not say yes to %s: they turn it down, ask about it or put it off. "+
			"Nothing of this call was decided or shown to the user. Confirm only what their words say yes to (call again without %s), "+
			"reject only what they said no to, or ask them.", cut(said), itemNumbers(refused), itemNumbers(refused))
	}
	return ""
}

// answerSet is the set an answer is about: the one named, else the one
// the person's message replies to, else their newest open one.
func (t *turn) answerSet(ctx context.Context, id nod.SetID) (nod.ChangeSet, error) {
	if id == "" {
		id = t.req.ReplySet
	}
	if id == "" {
		sets, err := t.a.sets.OpenChangeSets(ctx, t.req.Topic)
		if err != nil {
			return nod.ChangeSet{}, err
		}
		for _, s := range sets {
			if s.UserID == 0 || s.UserID == t.req.UserID {
				id = s.ID
				break
			}
		}
		if id == "" {
			return nod.ChangeSet{}, errors.New("no proposal is waiting for the user")
		}
	}
	set, err := t.a.sets.ChangeSet(ctx, t.req.ChatID, id)
	switch {
	case errors.Is(err, nod.ErrNotFound):
		return set, fmt.Errorf("there is no proposal %q; use the ids from your context", id)
	case err != nil:
		return set, err
	case set.Expired(t.a.now()) || !set.Status.Open():
		return set, fmt.Errorf("proposal %s is no longer open", id)
	case set.UserID != 0 && set.UserID != t.req.UserID:
		return set, fmt.Errorf("proposal %s belongs to another user", id)
	}
	return set, nil
}

// numbers reads an optional array of item numbers.
func numbers(a tools.Args, name string) ([]int, error) {
	els, ok, err := a.Array(name, false)
	if err != nil || !ok {
		return nil, err
	}
	var out []int
	for _, e := range els {
		n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(string(e)), `"`))
		if err != nil || n < 1 {
			return nil, a.Errorf(name, "must be an array of item numbers (1, 2, …)")
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// summary is the call as the classifier sees it: the items and what they
// change, as nod numbered and summarised them, each with its task's title
// (the conversation shows the proposal only as the person saw it).
func (c *answerCall) summary() string {
	part := func(verb string, ns []int) string {
		var items []string
		for _, n := range ns {
			it, _ := c.set.Item(n)
			if title, ok := c.titles[it.TaskID]; ok {
				items = append(items, fmt.Sprintf("%d (task %q: %s)", n, cutTo(title, 60), cut(it.Summary)))
			} else {
				items = append(items, fmt.Sprintf("%d (%s)", n, cut(it.Summary)))
			}
		}
		return verb + " items " + strings.Join(items, ", ")
	}
	var parts []string
	if len(c.confirm) > 0 {
		parts = append(parts, part("confirm", c.confirm))
	}
	if len(c.reject) > 0 {
		parts = append(parts, part("reject", c.reject))
	}
	// "the rest" or "all the others" can be checked only against what waited.
	return strings.Join(parts, " and ") + " of the pending proposal (waiting for the person's decision: " + waiting(c.set.Pending()) + ")"
}

// waiting names the items still to decide: "item 4 only", "items 1, 2 and 5".
func waiting(ns []int) string {
	if len(ns) == 1 {
		return fmt.Sprintf("item %d only", ns[0])
	}
	return itemNumbers(ns)
}

// reading says what was read, in the tool result.
func (c *answerCall) reading() string {
	var parts []string
	if len(c.confirm) > 0 {
		parts = append(parts, "confirm "+joinInts(c.confirm))
	}
	if len(c.reject) > 0 {
		parts = append(parts, "reject "+joinInts(c.reject))
	}
	return strings.Join(parts, "; ")
}

// itemNumbers names item numbers as a sentence does: "item 4", "items 1
// and 2", "items 1, 2 and 5".
func itemNumbers(ns []int) string {
	if len(ns) == 1 {
		return fmt.Sprintf("item %d", ns[0])
	}
	return "items " + andList(strings.Split(joinInts(ns), ", "))
}

// andList joins words as a sentence does: "a", "a and b", "a, b and c".
func andList(ss []string) string {
	if len(ss) < 2 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
}

func joinInts(ns []int) string {
	ss := make([]string, len(ns))
	for i, n := range ns {
		ss[i] = strconv.Itoa(n)
	}
	return strings.Join(ss, ", ")
}

// commitAnswer decides the items as the person said, when the classifier
// found their words asking for exactly that (a verified quote); otherwise
// it shows the person nod's reading, to accept with one tap, and decides
// nothing.
func (t *turn) commitAnswer(ctx context.Context, p *proposal, v confidence.Verdict) string {
	c := p.answer
	if v.Explicit() && v.Quote != "" {
		d, rejected, err := t.a.answers.Answer(ctx, t.req.ChatID, t.req.UserID, nod.Reading{SetID: c.set.ID, Confirm: c.confirm, Reject: c.reject, Reason: c.reason})
		if !slices.Contains(t.answered, c.set.ID) {
			t.answered = append(t.answered, c.set.ID)
		}
		if err != nil {
			t.record(p.start, p.tool.Name, p.args.JSON(), nod.OutcomeFailed, nod.Detail(err))
			return errorJSON(fmt.Errorf("the decision could not be applied: %s", nod.Detail(err)))
		}
		if d.Offer != nil {
			t.ruleOffer = d.Offer // a confirmation in words counts as a tap's
		}
		t.audit = append(t.audit, nod.AuditEntry{UserID: t.req.UserID, Tool: p.tool.Name, Args: p.args.JSON(), Outcome: nod.OutcomeExecuted,
			Verdict: verdictName(v), Reason: v.Quote, At: t.a.now()})
		applied := slices.Sorted(maps.Keys(d.Applied))
		decided := slices.Clone(applied)
		for _, call := range d.Calls {
			decided = append(decided, call.N)
		}
		slices.Sort(decided)
		done := []string{}
		if len(decided) > 0 {
			done = append(done, itemNumbers(decided)+" applied")
		}
		if rejected > 0 && rejected == len(c.reject) {
			done = append(done, itemNumbers(c.reject)+" rejected")
		} else if rejected > 0 {
			done = append(done, fmt.Sprintf("%d of items %s rejected (the others were decided before)", rejected, joinInts(c.reject)))
		}
		if len(done) == 0 {
			done = append(done, "nothing changed: those items were decided before")
		}
		out := "Decided as the user said: " + strings.Join(done, "; ") + "."
		// A task created by the answer has an id the model could not know:
		// without it, its next change to the task needs a look-up first.
		for _, n := range applied {
			if a := d.Applied[n]; a.Before == nil {
				out += fmt.Sprintf(" Item %d created task %s %q.", n, a.After.ID, cutTo(a.After.Title, 60))
			}
		}
		if n := d.Stale() + d.Failed(); n != 0 {
			out += fmt.Sprintf(" Item %d was not applied: its task changed; the proposal's message shows why.", n)
		}
		for i := range d.Calls {
			// The person's words ran it: its receipt says so, and the
			// model learns what it returned.
			call := &d.Calls[i]
			it, _ := d.Set.Item(call.N)
			t.receipts = append(t.receipts, nod.Receipt{Item: nod.ChangeItem{N: len(t.receipts) + 1, Tool: call.Tool, Args: call.Args, Summary: it.Summary,
				Field: nod.FieldCall, After: it.After, Status: nod.ItemConfirmed}, Quote: v.Quote, Call: call})
			out += fmt.Sprintf(" Item %d ran: %s", call.N, resultFor(*call))
		}
		// The pending list in the system message was read before this call.
		if left := d.Set.Pending(); len(left) > 0 {
			out += fmt.Sprintf(" Still waiting for the user in that proposal: %s.", itemNumbers(left))
		} else {
			out += " Nothing of that proposal waits for the user any more."
		}
		return out
	}
	// Items this turn's own proposals replace close with the turn: a
	// reading would ask the person to decide what is gone.
	var closed []int
	open := func(ns []int) []int {
		var out []int
		for _, n := range ns {
			if slices.Contains(t.supersede, nod.ItemRef{SetID: c.set.ID, N: n}) {
				closed = append(closed, n)
			} else {
				out = append(out, n)
			}
		}
		return out
	}
	c.confirm, c.reject = open(c.confirm), open(c.reject)
	if len(c.confirm)+len(c.reject) == 0 {
		t.record(p.start, p.tool.Name, p.args.JSON(), nod.OutcomeBlocked, "superseded in this turn")
		return fmt.Sprintf("Nothing to decide: %s closes with this turn, replaced by what you proposed in it; the user needs to do nothing about it.", itemNumbers(closed))
	}
	t.readings = append(t.readings, nod.Reading{ID: nod.NewID(), ChatID: t.req.ChatID, UserID: t.req.UserID, SetID: c.set.ID,
		Confirm: c.confirm, Reject: c.reject, Reason: c.reason})
	t.record(p.start, p.tool.Name, p.args.JSON(), nod.OutcomeQueued, "")
	return fmt.Sprintf("Not decided: the user was shown your reading (%s) with a button to accept it. Nothing changes until they tap it; do not say it was done.", c.reading())
}
