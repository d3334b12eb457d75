package agent

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/tools"
)

// covered splits a change that an explicit verdict would run at once into
// what the person's quoted words cover, which runs, and what no words of
// theirs cover, which asks (docs/design.md §3.5): a change runs at once
// only if their words cover everything it replaces. A verdict without a
// quote (trusted mode) is not split. wait tells the model what waits.
// repeats says the call gives its reminder a rule to repeat by.
func (t *turn) covered(pc prepared, v confidence.Verdict, repeats bool) (run, ask []prepared, wait waitNote) {
	if !v.Explicit() || v.Quote == "" {
		return []prepared{pc}, nil, waitNote{}
	}
	switch c := pc.c.(type) {
	case tools.Labels:
		return t.a.lex.coverLabels(pc, c, saidFor(v, nod.FieldLabels))
	case tools.Create:
		return t.coverCreate(pc, c, v)
	}
	// A receipt never claims more than was done: words that ask for a
	// reminder that repeats do not cover one reminder at one time.
	if pc.c.Field() == nod.FieldReminder && pc.target != "" && !repeats && t.a.lex.asksRepeat(saidFor(v, nod.FieldReminder)) {
		return nil, []prepared{pc}, waitingFor([]prepared{pc}, "The user's words ask for a reminder that repeats, but this set_task_reminder call has no repeat, so it sets one reminder at one time and waits for the user's tap: tell them it reminds them once and does not repeat, or set it again with repeat (an RRULE).")
	}
	return []prepared{pc}, nil, waitNote{}
}

// waitNote is what a covered call's note tells the model waits for the
// user's tap, said once routing knows which of those changes a learned
// rule applied instead: played, a rule's P3 was reported as waiting.
type waitNote struct {
	keys []string                   // the waiting changes' fieldKeys
	what []string                   // each as the note names it
	say  func(what []string) string // the note of those still waiting
}

// waitingFor is a note about the waiting changes asks, said unless a
// rule applies them all (or none waits).
func waitingFor(asks []prepared, note string) waitNote {
	w := waitNote{say: func([]string) string { return note }}
	for _, p := range asks {
		w.keys, w.what = append(w.keys, fieldKey(p.c)), append(w.what, "")
	}
	return w
}

// note is what still waits once ruled ran by a rule; "" for nothing.
func (w waitNote) note(ruled []prepared) string {
	var left []string
	for i, k := range w.keys {
		if !slices.ContainsFunc(ruled, func(p prepared) bool { return fieldKey(p.c) == k }) {
			left = append(left, w.what[i])
		}
	}
	if len(left) == 0 || w.say == nil {
		return ""
	}
	return w.say(left)
}

// asksRepeat reports whether words said ask for something to happen
// again and again: "every weekday", "daily", "jeden Montag", "montags".
func (l *lexicon) asksRepeat(said []string) bool {
	for _, q := range said {
		if l.repeat.any(wordsOf(q)) {
			return true
		}
	}
	return false
}

// coverCreate creates a new task with the fields the verdict's quote
// covers, and splits off each other field as a change of its own on the
// new task: one the person asked for in other words (a burst: "oh and
// it's urgent") runs with those words as its quote; one that no words
// name asks.
func (t *turn) coverCreate(pc prepared, c tools.Create, v confidence.Verdict) (run, ask []prepared, wait waitNote) {
	l := t.a.lex
	base := c.NewTask().Clone()
	var apart []fieldValue
	for _, fv := range newFields(c.NewTask()) {
		q := ""
		if fq, ok := v.Fields[string(fv.f)]; ok && (fv.f != nod.FieldPriority || !l.otherPriority(fq.Quote, fv.value)) {
			q = fq.Quote
		}
		switch {
		case q == "" && fv.f == nod.FieldLabels:
			// Each label the quote does not name is one nobody asked for.
			fv.labels = slices.DeleteFunc(slices.Clone(fv.labels), func(l string) bool { return asksLabel([]string{v.Quote}, l) })
			if len(fv.labels) == 0 {
				continue
			}
		case q == "" && l.speaksOf(v.Quote, fv):
			continue
		case nod.FoldText(q) == nod.FoldText(v.Quote):
			continue
		}
		fv.quote = q
		apart = append(apart, fv)
		fv.clear(&base)
	}
	if len(apart) == 0 {
		return []prepared{pc}, nil, waitNote{}
	}
	base.ID = nod.TaskID(nod.NewID()) // the split-off changes name it before it exists
	created := tools.NewCreate(base)
	run = append(run, prepared{c: created, cur: "", target: base.Title})
	wait.say = func(what []string) string {
		verb := "waits"
		if len(what) > 1 {
			verb = "wait"
		}
		return fmt.Sprintf("The task was created with what the user's words asked for; its %s %s for the user's tap: no words of theirs quoted for this call ask for them.", andList(what), verb)
	}
	for _, fv := range apart {
		c := fv.change(base.ID)
		if c == nil {
			continue
		}
		p, ok := prepareOn(c, &base)
		if !ok {
			continue
		}
		t.fields[fieldKey(p.c)] = true // one proposal per field per turn
		if p.quote = fv.quote; p.quote != "" {
			run = append(run, p)
			continue
		}
		ask = append(ask, p)
		wait.keys, wait.what = append(wait.keys, fieldKey(p.c)), append(wait.what, fv.String())
	}
	return run, ask, wait
}

// fieldValue is one field create_task gives a new task beyond its title.
type fieldValue struct {
	f        nod.Field
	value    string   // as the tool that sets it takes it
	labels   []string // for labels
	estimate int      // for the estimate
	quote    string   // the person's words for it apart, if any
}

// newFields lists the fields t sets beyond its title and the defaults a
// new task has anyway (OPEN, P2).
func newFields(t nod.Task) []fieldValue {
	var out []fieldValue
	if t.Priority != nod.P2 {
		out = append(out, fieldValue{f: nod.FieldPriority, value: string(t.Priority)})
	}
	if t.EstimateMinutes != nil {
		out = append(out, fieldValue{f: nod.FieldEstimate, value: fmt.Sprint(*t.EstimateMinutes), estimate: *t.EstimateMinutes})
	}
	if t.DueDate != "" {
		out = append(out, fieldValue{f: nod.FieldDue, value: t.DueDate})
	}
	if len(t.Labels) > 0 {
		out = append(out, fieldValue{f: nod.FieldLabels, labels: t.Labels})
	}
	if t.Description != "" {
		out = append(out, fieldValue{f: nod.FieldDescription, value: t.Description})
	}
	return out
}

// clear takes the field's value off t, leaving the new task's default.
func (fv fieldValue) clear(t *nod.Task) {
	switch fv.f {
	case nod.FieldPriority:
		t.Priority = nod.P2
	case nod.FieldEstimate:
		t.EstimateMinutes = nil
	case nod.FieldDue:
		t.DueDate = ""
	case nod.FieldLabels:
		t.Labels = slices.DeleteFunc(t.Labels, func(l string) bool { return slices.Contains(fv.labels, l) })
	case nod.FieldDescription:
		t.Description = ""
	}
}

// change is the change that sets the field on task id, made by the
// tool that sets it from the arguments it takes; nil if they do not
// parse, which a validated create_task never gives.
func (fv fieldValue) change(id nod.TaskID) tools.Call {
	tool, arg, value := map[nod.Field]nod.Tool{nod.FieldPriority: nod.ToolSetPriority, nod.FieldEstimate: nod.ToolUpdateEstimate,
		nod.FieldDue: nod.ToolUpdateDueDate, nod.FieldLabels: nod.ToolAssignLabels, nod.FieldDescription: nod.ToolUpdateDescription}[fv.f], string(fv.f), any(fv.value)
	switch fv.f {
	case nod.FieldEstimate:
		arg, value = "estimate_minutes", fv.estimate
	case nod.FieldDue:
		arg = "due_date"
	case nod.FieldLabels:
		arg, value = "add", fv.labels
	}
	a, err := tools.Decode(tool, string(tools.MustJSON(map[string]any{"task_id": id, arg: value})))
	if err != nil {
		return nil
	}
	cs, _, err := a.Calls()
	if err != nil || len(cs) != 1 {
		return nil
	}
	return cs[0]
}

// String names the field and its value for the model.
func (fv fieldValue) String() string {
	switch fv.f {
	case nod.FieldEstimate:
		return fmt.Sprintf("estimate %d minutes", fv.estimate)
	case nod.FieldDue:
		return "due date " + fv.value
	case nod.FieldLabels:
		return tools.LabelWord(fv.labels) + " " + quoteAll(fv.labels)
	case nod.FieldDescription:
		return "description"
	}
	return fmt.Sprintf("%s %s", fv.f, fv.value)
}

// saidFor is the person's words that may cover field f of a call: the
// verdict's quote and its quote for that field.
func saidFor(v confidence.Verdict, f nod.Field) []string {
	said := []string{v.Quote}
	if q, ok := v.Fields[string(f)]; ok {
		said = append(said, q.Quote)
	}
	return said
}

// coverLabels keeps back the labels c takes away that the words do not
// ask to remove: the labels it adds (and the removals asked for) run,
// the rest is a removal of its own, proposed on the task as the running
// part leaves it.
func (l *lexicon) coverLabels(pc prepared, c tools.Labels, said []string) (run, ask []prepared, wait waitNote) {
	gone := removedLabels(pc.cur, pc.target)
	var kept []string
	for _, g := range gone {
		if !l.asksRemoval(said, g, len(gone)) {
			kept = append(kept, g)
		}
	}
	if len(kept) == 0 {
		return []prepared{pc}, nil, waitNote{}
	}
	now := tools.Labels{Task: c.Task, Add: removedLabels(pc.target, pc.cur), Remove: slices.DeleteFunc(gone, func(l string) bool { return slices.Contains(kept, l) })}
	mid := pc.task.Clone()
	if p, ok := prepareOn(now, pc.task); ok {
		run = append(run, p)
		_ = now.Apply(&mid, time.Time{}, "") // labels stamp nothing
	}
	if p, ok := prepareOn(tools.Labels{Task: c.Task, Remove: kept}, &mid); ok {
		ask = append(ask, p)
	}
	note := fmt.Sprintf("Taking away %s %s waits for the user's tap: the user's words quoted for this call do not ask to remove it.", tools.LabelWord(kept), quoteAll(kept))
	if len(run) > 0 {
		note += " The rest of the call was applied."
	}
	return run, ask, waitingFor(ask, note)
}

// prepareOn reads change c against task as validate does; ok is false
// for a change that would change nothing.
func prepareOn(c tools.Call, task *nod.Task) (prepared, bool) {
	cur, err1 := c.Current(task)
	target, err2 := c.Target(task)
	if err1 != nil || err2 != nil || cur == target {
		return prepared{}, false
	}
	return prepared{c: c, task: task, cur: cur, target: target}, true
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// asksRemoval reports whether words said ask to take away label l, one
// of n labels a call takes away (docs/design.md §3.5). They do when they
// name l; when they ask to replace or empty the whole set ("only",
// "nur", "instead", "statt", "replace…", "ersetz…", "clear…", or a word
// that removes beside "all", "alle"); or when they ask to remove and the
// call takes away that one label alone ("remove the label"). Words that
// ask to add never do.
func (l *lexicon) asksRemoval(said []string, label string, n int) bool {
	if asksLabel(said, label) {
		return true
	}
	for _, s := range said {
		ws := wordsOf(s)
		removes, all := false, false
		for _, w := range ws {
			switch {
			case l.wholeSet.has(w):
				return true
			case l.removal.has(w):
				removes = true
			case l.every.has(w):
				all = true
			}
		}
		if removes && (all || n == 1) {
			return true
		}
	}
	return false
}

// asksLabel reports whether words said name label l: its words in
// order, ignoring case and punctuation.
func asksLabel(said []string, l string) bool {
	label := strings.Join(wordsOf(l), " ")
	for _, s := range said {
		if label != "" && strings.Contains(" "+strings.Join(wordsOf(s), " ")+" ", " "+label+" ") {
			return true
		}
	}
	return false
}

// speaksOf reports whether a quote speaks of a new task's field, so that
// it covers it (docs/design.md §3.5): a priority by its value ("P0") or
// a word of urgency; a due date by a day, a month, a date or a word of
// deadlines; an estimate by a duration; a description by its text or by
// naming it. Labels are named one by one (asksLabel).
func (l *lexicon) speaksOf(quote string, fv fieldValue) bool {
	ws := wordsOf(quote)
	switch fv.f {
	case nod.FieldPriority:
		if l.otherPriority(quote, fv.value) {
			return false // "P1" never speaks of a P0
		}
		return slices.Contains(ws, strings.ToLower(fv.value)) || l.priority.any(ws)
	case nod.FieldDue:
		return l.dateLike.MatchString(strings.ToLower(quote)) || l.due.any(ws)
	case nod.FieldEstimate:
		return l.duration.MatchString(strings.ToLower(quote)) || l.estimate.any(ws)
	case nod.FieldDescription:
		return strings.Contains(nod.FoldText(quote), nod.FoldText(fv.value)) || l.description.any(ws)
	}
	return false
}

// wordsOf splits text into lower-case words of letters and digits.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
