package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/repeat"
	"github.com/nodbot/nod/tools"
	"github.com/prometheus/client_golang/prometheus"
)

// Service decides change items and undoes applied changes on the
// person's behalf. Every method authorizes the user against the record it
// names before anything is written.
type Service struct {
	sets      Decisions
	tasks     Tasks
	editor    Editor
	undos     Undos
	breaker   Breaker
	rules     Rules
	deletions Deletions
	replies   Replies
	forgets   Forgets
	external  Caller
	calls     Outcomes
	forget    []string      // the phrases that confirm a /forget
	window    time.Duration // how long a /forget waits for them
	words     *answer.Reader
	now       func() time.Time
	log       *slog.Logger
	decisions *prometheus.CounterVec
}

// New returns the confirmation service. Its decisions are counted on reg,
// when set.
func New(d Deps, now func() time.Time, log *slog.Logger, reg prometheus.Registerer) *Service {
	dc := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_decisions_total", Help: "Applied decisions by verdict: confirmed, rejected, stale, failed, undone."}, []string{"verdict"})
	if reg != nil {
		reg.MustRegister(dc)
	}
	if d.ConfirmWindow <= 0 {
		d.ConfirmWindow = nod.DefaultConfirmWindow
	}
	return &Service{sets: d.Decisions, tasks: d.Tasks, editor: d.Editor, undos: d.Undos, breaker: d.Breaker, rules: d.Rules, deletions: d.Deletions, replies: d.Replies,
		forgets: d.Forgets, external: d.External, calls: d.Calls, forget: d.ForgetWords, window: d.ConfirmWindow, words: d.Words, now: now, log: log, decisions: dc}
}

// authorize loads the set and checks that userID may decide it: in a group
// only the person whose request produced it, or, for a proactive review's
// set (UserID 0), any allowed user of the chat.
func (c *Service) authorize(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID) (nod.ChangeSet, error) {
	set, err := c.sets.ChangeSet(ctx, chatID, setID)
	if err != nil {
		return set, err
	}
	if !set.DecidableBy(userID) {
		return set, fmt.Errorf("change set %s belongs to user %d: %w", setID, set.UserID, nod.ErrForbidden)
	}
	if set.Expired(c.now()) {
		return set, fmt.Errorf("change set %s: %w", setID, nod.ErrExpired)
	}
	return set, nil
}

// Confirm confirms item n. A change whose task changed since it was
// proposed is not applied: the item becomes stale with a note saying what
// the value is now. An external call the item holds is claimed, not yet
// sent: the caller sends it with RunCalls once it answered the tap (so
// does ApplyAnyway, Retry and ConfirmAll). Errors wrap nod.ErrNotFound, nod.ErrForbidden,
// nod.ErrExpired or nod.ErrDecided; any other error means nothing was
// written and the item is still pending.
func (c *Service) Confirm(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error) {
	// The store authorizes inside the transaction that decides: the set
	// is read once.
	d, err := c.confirm(ctx, chatID, userID, setID, []int{n}, false, "")
	c.offerRule(ctx, chatID, userID, &d)
	return d, err
}

// ApplyAnyway confirms item n although its task changed since it was
// proposed. Errors as Confirm.
func (c *Service) ApplyAnyway(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error) {
	d, err := c.confirm(ctx, chatID, userID, setID, []int{n}, true, "")
	c.offerRule(ctx, chatID, userID, &d)
	return d, err
}

// Skip closes item n as stale, keeping the task as it is now. Errors as
// Reject.
func (c *Service) Skip(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error) {
	// The store authorizes and checks the item inside its transaction: the
	// set is read once, on one clock reading.
	set, err := c.sets.FailItem(ctx, chatID, setID, n, userID, nod.ItemStale, nod.Note{Key: nod.NoteSkipped})
	if err == nil {
		c.decisions.WithLabelValues(string(nod.ItemStale)).Inc()
	}
	return nod.Decided{Set: set}, err
}

// Retry makes the failed item n pending again and confirms the pending
// items in order, as ConfirmAll.
func (c *Service) Retry(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error) {
	set, err := c.authorize(ctx, chatID, userID, setID)
	if err != nil {
		return nod.Decided{Set: set}, err
	}
	if _, err := c.sets.ReopenItem(ctx, chatID, setID, n); err != nil {
		return nod.Decided{Set: set}, err
	}
	return c.ConfirmAll(ctx, chatID, userID, setID)
}

// confirm confirms items ns in order in one transaction, each re-validated
// against its task as it is then. An item whose task changed since it was
// proposed is not applied unless force is set: it stays pending with a
// note (Decided.Stale) and ends the run; one that can no longer apply is
// closed as stale or failed and ends the run (Decided.Failed). words are the
// person's answer that decided them, if nod read one.
func (c *Service) confirm(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, ns []int, force bool, words string) (nod.Decided, error) {
	now := c.now()
	decide := func(it nod.ChangeItem, cur *nod.Task) (nod.Task, error) {
		ch, err := tools.Parse(it.Tool, it.Args)
		if err != nil {
			return nod.Task{}, &nod.Refusal{Status: nod.ItemFailed, Note: nod.Note{Key: nod.NoteInvalid}}
		}
		value, err := ch.Current(cur)
		if err != nil {
			return nod.Task{}, refusal(err)
		}
		target, _ := ch.Target(cur)
		switch {
		case value == target:
			return nod.Task{}, &nod.Refusal{Status: nod.ItemStale, Note: staleNote(&it, cur, value, target)}
		case value != it.Before && !force:
			// Not applied silently: the person sees the value now and decides.
			return nod.Task{}, &nod.Refusal{Status: nod.ItemPending, Note: staleNote(&it, cur, value, target)}
		}
		var t nod.Task
		if cur != nil {
			t = *cur
		}
		// Confirming is the person's own act: checklist changes are theirs.
		if err := ch.Apply(&t, now, nod.ActorUser); err != nil {
			return nod.Task{}, refusal(err)
		}
		if t.ID != "" {
			if err := t.Validate(); err != nil {
				return nod.Task{}, refusal(err)
			}
		}
		return t, nil
	}
	d, err := c.sets.ConfirmItems(ctx, chatID, setID, ns, userID, words, decide)
	for range d.Applied {
		c.decisions.WithLabelValues("confirmed").Inc()
	}
	if it, ok := d.Set.Item(d.Stopped); ok && it.Status != nod.ItemPending {
		c.decisions.WithLabelValues(string(it.Status)).Inc()
	}
	if err != nil && !errors.Is(err, nod.ErrDecided) && !errors.Is(err, nod.ErrExpired) && !errors.Is(err, nod.ErrNotFound) && !errors.Is(err, nod.ErrHandled) {
		c.log.Error("confirm items", "chat", chatID, "set", setID, "items", ns, "err", err)
	}
	return d, err
}

// refusal turns a change that cannot apply to its task as it is now into
// the failed item the person sees; other errors abort the confirmation.
func refusal(err error) error {
	switch {
	case errors.Is(err, nod.ErrNotFound):
		return &nod.Refusal{Status: nod.ItemFailed, Note: nod.Note{Key: nod.NoteItemGone}}
	case errors.Is(err, nod.ErrInvalid):
		return &nod.Refusal{Status: nod.ItemFailed, Note: nod.Note{Key: nod.NoteCannot, Args: []string{nod.Detail(err)}}}
	}
	return err
}

// staleNote says what the field is now, for the person.
func staleNote(it *nod.ChangeItem, cur *nod.Task, value, target string) nod.Note {
	if value == target {
		if it.Field == nod.FieldChecklist && cur != nil {
			if title, checked, ok := tools.ItemValue(value); ok {
				return nod.Note{Key: nod.NoteAlreadyItem, Args: []string{title, tools.CheckState(checked)}}
			}
		}
		return nod.Note{Key: nod.NoteAlready}
	}
	switch it.Field {
	case nod.FieldChecklist, nod.FieldDescription, nod.FieldTitle:
		return nod.Note{Key: nod.NoteChanged, Args: []string{string(it.Field)}}
	}
	return nod.Note{Key: nod.NoteNow, Args: []string{string(it.Field), value}}
}

// Reject rejects item n. Errors as Confirm.
func (c *Service) Reject(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error) {
	// The store authorizes and checks the item inside its transaction.
	set, err := c.sets.RejectItem(ctx, chatID, setID, n, userID)
	if err == nil {
		c.decisions.WithLabelValues("rejected").Inc()
	}
	return nod.Decided{Set: set}, err
}

// ConfirmAll confirms the pending items in order, each seeing the previous
// one's result, and stops at the first that fails; the rest stay pending.
// With nothing pending it returns nod.ErrDecided.
func (c *Service) ConfirmAll(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID) (nod.Decided, error) {
	d, err := c.confirm(ctx, chatID, userID, setID, nil, false, "") // nil: what is pending in the transaction
	c.offerRule(ctx, chatID, userID, &d)
	return d, err
}

// ConfirmSome confirms items ns in order, in one transaction, as
// ConfirmAll does for every pending item: a decision stated in words.
// Items no longer pending are passed over.
func (c *Service) ConfirmSome(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, ns []int) (nod.Decided, error) {
	if len(ns) == 0 {
		set, err := c.authorize(ctx, chatID, userID, setID)
		if err != nil {
			return nod.Decided{Set: set}, err
		}
		return nod.Decided{Set: set, Applied: map[int]nod.Applied{}}, fmt.Errorf("nothing named to decide: %w", nod.ErrDecided)
	}
	d, err := c.confirm(ctx, chatID, userID, setID, ns, false, "")
	c.RunCalls(ctx, &d)
	c.offerRule(ctx, chatID, userID, &d)
	return d, err
}

// Answer decides the items of reading r as the person's taps would: it
// confirms r.Confirm in order (one transaction) and rejects r.Reject,
// each rejection with r.Reason. The person's words, when nod read them
// itself, are kept with each decision. It returns the decision and how
// many items it rejected.
func (c *Service) Answer(ctx context.Context, chatID nod.ChatID, userID nod.UserID, r nod.Reading) (nod.Decided, int, error) {
	d := nod.Decided{Applied: map[int]nod.Applied{}}
	var err error
	if len(r.Confirm) > 0 {
		d, err = c.confirm(ctx, chatID, userID, r.SetID, r.Confirm, false, r.Words)
		c.RunCalls(ctx, &d) // no button waits for an answer: the calls go now
		c.offerRule(ctx, chatID, userID, &d)
		if err != nil && !errors.Is(err, nod.ErrDecided) {
			return d, 0, err
		}
	}
	if d.Set.ID == "" {
		if d.Set, err = c.authorize(ctx, chatID, userID, r.SetID); err != nil {
			return d, 0, err
		}
	}
	rejected := 0
	for _, n := range r.Reject {
		if it, ok := d.Set.Item(n); !ok || it.Status != nod.ItemPending {
			continue
		}
		set, err := c.sets.RejectItemBecause(ctx, chatID, r.SetID, n, userID, r.Reason, r.Words)
		if errors.Is(err, nod.ErrDecided) {
			continue
		}
		if err != nil {
			return d, rejected, err
		}
		d.Set = set
		rejected++
		c.decisions.WithLabelValues("rejected").Inc()
	}
	return d, rejected, nil
}

// RejectAll rejects every pending item. With nothing pending it returns
// nod.ErrDecided.
func (c *Service) RejectAll(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID) (nod.Decided, error) {
	set, err := c.authorize(ctx, chatID, userID, setID)
	if err != nil {
		return nod.Decided{Set: set}, err
	}
	d := nod.Decided{Set: set}
	pending := set.Pending()
	if len(pending) == 0 {
		return d, fmt.Errorf("nothing left to decide: %w", nod.ErrDecided)
	}
	for _, n := range pending {
		s, err := c.sets.RejectItem(ctx, chatID, setID, n, userID)
		if err != nil && !errors.Is(err, nod.ErrDecided) {
			return d, err
		}
		if err == nil {
			d.Set = s
			c.decisions.WithLabelValues("rejected").Inc()
		}
	}
	return d, nil
}

// Undo reverts an applied change. Errors wrap nod.ErrNotFound,
// nod.ErrDecided (already undone), nod.ErrExpired, nod.ErrSent (the
// reminder it set went out since) or nod.ErrStale (the task changed
// since; force overrides).
func (c *Service) Undo(ctx context.Context, chatID nod.ChatID, userID nod.UserID, undoID nod.UndoID, force bool) (nod.Undone, error) {
	u, err := c.undos.UndoEntry(ctx, chatID, undoID)
	if err != nil {
		return nod.Undone{}, err
	}
	out, err := c.undos.Undo(ctx, chatID, undoID, userID, force)
	if err != nil {
		return nod.Undone{}, err
	}
	c.decisions.WithLabelValues("undone").Inc()
	if !u.Auto {
		return out, nil
	}
	out.Breaker, out.Previous = c.tripAfterUndo(ctx, chatID, u.UserID, 1)
	return out, nil
}

// UndoAll undoes the changes of a receipt of many at once, in one
// transaction (see Undos.UndoAll): ids undone already are left out. To
// the circuit breaker it is one undo, the person's one decision.
func (c *Service) UndoAll(ctx context.Context, chatID nod.ChatID, userID nod.UserID, ids []nod.UndoID) (nod.UndoneAll, error) {
	auto := 0
	for _, id := range ids {
		if u, err := c.undos.UndoEntry(ctx, chatID, id); err == nil && u.Auto && u.UndoneAt == nil {
			auto++
		}
	}
	done, err := c.undos.UndoAll(ctx, chatID, ids, userID)
	if err != nil {
		return nod.UndoneAll{}, err
	}
	c.decisions.WithLabelValues("undone").Add(float64(len(done)))
	out := nod.UndoneAll{Undone: done}
	if auto > 0 {
		out.Breaker, out.Previous = c.tripAfterUndo(ctx, chatID, userID, auto)
	}
	return out, nil
}

// tripAfterUndo trips the circuit breaker for userID when the person
// has undone enough auto-applied changes within its window; n is how
// many the undo just made took back, which count as one.
func (c *Service) tripAfterUndo(ctx context.Context, chatID nod.ChatID, userID nod.UserID, n int) (tripped bool, previous nod.Mode) {
	now := c.now()
	settings, err := c.breaker.ChatSettings(ctx, chatID, userID)
	if err != nil {
		c.log.Error("circuit breaker", "chat", chatID, "err", err)
		return false, ""
	}
	if settings.Effective(now) == nod.ModeAlways {
		return false, ""
	}
	undos, err := c.undos.AutoUndosSince(ctx, chatID, userID, now.Add(-nod.BreakerWindow))
	if undos -= n - 1; err != nil || undos < nod.BreakerUndos {
		return false, ""
	}
	if err := c.breaker.TripBreaker(ctx, chatID, userID, now.Add(nod.BreakerFor)); err != nil {
		c.log.Error("circuit breaker", "chat", chatID, "err", err)
		return false, ""
	}
	c.log.Info("circuit breaker tripped", "chat", chatID, "undos", undos)
	return true, settings.Mode
}

// Toggle flips a checklist item's checked state from the task card: the
// person's own act, stamped user and now, audited and undoable.
// want is nod.ToggleTick or nod.ToggleUntick, what the tapped button said
// (anything else is nod.ErrInvalid); an item already as wanted is
// nod.ErrDecided (the card the person tapped was out of date). at is where the card was tapped:
// its undo is that topic's.
func (c *Service) Toggle(ctx context.Context, at nod.Topic, userID nod.UserID, itemID nod.ItemID, want int) (nod.Applied, error) {
	var checked bool
	switch want {
	case nod.ToggleTick:
		checked = true
	case nod.ToggleUntick:
		checked = false
	default:
		return nod.Applied{}, fmt.Errorf("toggle item %q: want %d: %w", itemID, want, nod.ErrInvalid)
	}
	task, err := c.tasks.ChecklistOwner(ctx, at.ChatID, itemID)
	if err != nil {
		return nod.Applied{}, err
	}
	it, _ := task.Item(itemID)
	if checked == it.Checked {
		return nod.Applied{After: task}, fmt.Errorf("item %q is already %s: %w", it.Title, tools.CheckState(checked), nod.ErrDecided)
	}
	ch, err := tools.Parse(nod.ToolUpdateItem, tools.MustJSON(map[string]any{"task_id": task.ID, "id": itemID, "isChecked": checked}))
	if err != nil {
		return nod.Applied{}, err
	}
	now := c.now()
	return c.editor.Apply(ctx, nod.Edit{
		Topic: at, UserID: userID, TaskID: task.ID, Tool: nod.ToolToggleItem, Args: ch.Args(),
		Summary: ch.Summary(&task),
		Mutate: func(cur *nod.Task) (nod.Task, error) {
			err := ch.Apply(cur, now, nod.ActorUser)
			return *cur, err
		},
		Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted, UserConfirmed: true},
	})
}

// Delete moves the task of a confirmed pending deletion to the trash: the
// person typed its title, in the deletion's topic. Undoable like any
// change.
func (c *Service) Delete(ctx context.Context, chatID nod.ChatID, userID nod.UserID, d nod.PendingDeletion) (nod.Applied, error) {
	now := c.now()
	return c.editor.Apply(ctx, nod.Edit{
		Topic: nod.Topic{ChatID: chatID, Thread: d.Thread}, UserID: userID, TaskID: d.TaskID, Tool: nod.ToolDeleteTask,
		Args: tools.MustJSON(map[string]string{"task_id": string(d.TaskID)}), Summary: fmt.Sprintf("Delete %q", d.Title),
		Mutate: func(cur *nod.Task) (nod.Task, error) {
			cur.DeletedAt = &now
			return *cur, nil
		},
		Audit: nod.AuditEntry{Outcome: nod.OutcomeConfirmed, UserConfirmed: true, Reason: "typed the task's title"},
	})
}

// Restore brings a task back from the trash with its checklist; at is
// where the person asked.
func (c *Service) Restore(ctx context.Context, at nod.Topic, userID nod.UserID, taskID nod.TaskID) (nod.Applied, error) {
	return c.editor.Apply(ctx, nod.Edit{
		Topic: at, UserID: userID, TaskID: taskID, Tool: nod.ToolRestoreTask, Trashed: true,
		Args: tools.MustJSON(map[string]string{"task_id": string(taskID)}), Summary: "Restore from the trash",
		Mutate: func(cur *nod.Task) (nod.Task, error) {
			if cur.DeletedAt == nil {
				return nod.Task{}, fmt.Errorf("task %q is not in the trash: %w", cur.Title, nod.ErrDecided)
			}
			cur.DeletedAt = nil
			return *cur, nil
		},
		Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted, UserConfirmed: true},
	})
}

// Repropose re-validates the pending items of an expired set against the
// tasks as they are now and opens a fresh set with those that still make
// sense. It returns the new set (nil if nothing still makes sense) and how
// many items were dropped.
func (c *Service) Repropose(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID) (*nod.ChangeSet, int, error) {
	old, err := c.sets.ChangeSet(ctx, chatID, setID)
	if err != nil {
		return nil, 0, err
	}
	if old.UserID != 0 && old.UserID != userID {
		return nil, 0, fmt.Errorf("change set %s belongs to user %d: %w", setID, old.UserID, nod.ErrForbidden)
	}
	var items []nod.ChangeItem
	dropped := 0
	for _, it := range old.Items {
		if it.Status != nod.ItemPending {
			continue
		}
		item, ok := c.revalidate(ctx, chatID, it)
		if !ok {
			dropped++
			continue
		}
		items = append(items, item)
	}
	fresh, err := c.sets.Repropose(ctx, chatID, setID, old.UserID, items)
	return fresh, dropped, err
}

// revalidate rebuilds an item against its task as it is now; false if the
// task or item is gone or the change would change nothing.
func (c *Service) revalidate(ctx context.Context, chatID nod.ChatID, it nod.ChangeItem) (nod.ChangeItem, bool) {
	if it.Field == nod.FieldCall { // an external call touches no task: it still makes sense
		return nod.ChangeItem{Tool: it.Tool, Args: it.Args, Summary: it.Summary, Field: it.Field, After: it.After}, true
	}
	ch, err := tools.Parse(it.Tool, it.Args)
	if err != nil {
		return it, false
	}
	var task *nod.Task
	if it.TaskID != "" {
		t, err := c.tasks.Task(ctx, chatID, it.TaskID)
		if err != nil {
			return it, false
		}
		task = &t
	}
	cur, err1 := ch.Current(task)
	target, err2 := ch.Target(task)
	if err1 != nil || err2 != nil || cur == target {
		return it, false
	}
	return tools.Typed(ch, task, nod.ChangeItem{Tool: it.Tool, TaskID: it.TaskID, Args: it.Args, Summary: ch.Summary(task), Field: it.Field, Before: cur, After: target}), true
}

// MarkDone sets a task's status to DONE from its reminder's button: the
// person's own change, audited and undoable. nod.ErrDecided if it is
// done already. where is the reminder's topic.
//
// On a repeating reminder it completes this time only: the task stays
// open and its reminder moves to the rule's next occurrence in zone, the
// chat's (tools.Occurrence); a rule with none left closes the task.
func (t *Taps) MarkDone(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, zone *time.Location) (nod.Applied, error) {
	c := t.c
	if next, t, ok := c.nextOccurrence(ctx, where.ChatID, taskID, zone); ok {
		return c.tap(ctx, where, userID, tools.Occurrence(t, next), "the reminder's ✓ Done", true, nil)
	}
	ch, err := tools.Parse(nod.ToolSetStatus, tools.MustJSON(map[string]any{"task_id": taskID, "status": nod.StatusDone}))
	if err != nil {
		return nod.Applied{}, err
	}
	return c.tap(ctx, where, userID, ch, "the reminder's ✓ Done", true, nil)
}

// nextOccurrence is the occurrence of task taskID's repeating reminder
// after now and after the time it is at, if it repeats and has one.
func (c *Service) nextOccurrence(ctx context.Context, chatID nod.ChatID, taskID nod.TaskID, zone *time.Location) (time.Time, nod.Task, bool) {
	t, err := c.tasks.Task(ctx, chatID, taskID)
	if err != nil || t.Repeat == "" || t.RemindAt == nil || t.Status == nod.StatusDone || t.Status == nod.StatusRejected {
		return time.Time{}, t, false
	}
	rule, err := repeat.Read(t.Repeat)
	if err != nil {
		return time.Time{}, t, false
	}
	from := c.now()
	if t.RemindAt.After(from) {
		from = *t.RemindAt
	}
	next, ok := rule.Next(zone, from)
	return next.In(zone), t, ok
}

// Remind moves a task's reminder to at from its reminder's button: the
// person's own change, audited and undoable; the reminder stays in where,
// the reminder's topic.
func (t *Taps) Remind(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, at time.Time) (nod.Applied, error) {
	c := t.c
	ch, err := tools.Remind(taskID, at)
	if err != nil {
		return nod.Applied{}, err
	}
	return c.tap(ctx, where, userID, snooze{ch}, "the reminder's ⏰ button", true, nil)
}

// snooze is the change a reminder's ⏰ makes; its audit row says so
// ("snooze": true), to be told from a reminder the person set anew.
type snooze struct{ tools.Call }

func (s snooze) Args() json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(s.Call.Args(), &m) != nil || m == nil {
		return s.Call.Args()
	}
	m["snooze"] = json.RawMessage("true")
	return tools.MustJSON(m)
}

// tap applies ch as the person's tap; nod.ErrDecided if it changes
// nothing. A tap on a reminder's button (reminder set) acts only for the
// person who set the reminder: nod.ErrForbidden otherwise. check, if not
// nil, is what the task must be as it is now for the tap to apply (a
// card's).
func (c *Service) tap(ctx context.Context, at nod.Topic, userID nod.UserID, ch tools.Call, reason string, reminder bool, check func(*nod.Task) error) (nod.Applied, error) {
	now := c.now()
	return c.editor.Apply(ctx, nod.Edit{
		Topic: at, UserID: userID, TaskID: ch.TaskID(), Tool: ch.Tool(), Args: ch.Args(),
		Mutate: func(cur *nod.Task) (nod.Task, error) {
			if reminder && cur.RemindBy != 0 && cur.RemindBy != userID {
				return nod.Task{}, fmt.Errorf("the reminder of task %q is user %d's: %w", cur.Title, cur.RemindBy, nod.ErrForbidden)
			}
			if reminder && ch.Field() == nod.FieldReminder && (cur.Status == nod.StatusDone || cur.Status == nod.StatusRejected) {
				// An old reminder's ⏰ must not put off a task that is closed:
				// its reminder would never come.
				return nod.Task{}, fmt.Errorf("task %q is %s: %w", cur.Title, cur.Status, nod.ErrDecided)
			}
			if check != nil {
				if err := check(cur); err != nil {
					return nod.Task{}, err
				}
			}
			before, _ := ch.Current(cur)
			after, _ := ch.Target(cur)
			if before == after {
				return nod.Task{}, fmt.Errorf("task %q: %w", cur.Title, nod.ErrDecided)
			}
			if err := ch.Apply(cur, now, nod.ActorUser); err != nil {
				return nod.Task{}, err
			}
			return *cur, nil
		},
		Summary: ch.Summary(nil),
		Audit:   nod.AuditEntry{Outcome: nod.OutcomeExecuted, UserConfirmed: true, Reason: reason},
	})
}

// CardDone marks a task done from its card's ✓ Done as the reminder's
// button does (MarkDone): a repeating reminder's occurrence is completed
// and the task stays open. shown is the reminder the card showed (zero:
// none); the tap applies only to the task as its card showed it.
func (t *Taps) CardDone(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, zone *time.Location, shown time.Time) (nod.Applied, error) {
	c := t.c
	check := cardShowed(userID, shown, true)
	if next, t, ok := c.nextOccurrence(ctx, where.ChatID, taskID, zone); ok {
		return c.tap(ctx, where, userID, tools.Occurrence(t, next), "the card's ✓ Done", false, check)
	}
	ch, err := tools.Parse(nod.ToolSetStatus, tools.MustJSON(map[string]any{"task_id": taskID, "status": nod.StatusDone}))
	if err != nil {
		return nod.Applied{}, err
	}
	return c.tap(ctx, where, userID, ch, "the card's ✓ Done", false, check)
}

// CardSnooze moves a task's reminder to at from its card's ⏰, as the
// reminder's own ⏰ does; shown is the reminder the card showed.
func (t *Taps) CardSnooze(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, at, shown time.Time) (nod.Applied, error) {
	c := t.c
	ch, err := tools.Remind(taskID, at)
	if err != nil {
		return nod.Applied{}, err
	}
	return c.tap(ctx, where, userID, snooze{ch}, "the card's ⏰ button", true, cardShowed(userID, shown, true))
}

// Reopen opens a done or rejected task again from its card's ↩️ Reopen;
// an open one is nod.ErrDecided.
func (t *Taps) Reopen(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID) (nod.Applied, error) {
	c := t.c
	ch, err := tools.Parse(nod.ToolSetStatus, tools.MustJSON(map[string]any{"task_id": taskID, "status": nod.StatusOpen}))
	if err != nil {
		return nod.Applied{}, err
	}
	return c.tap(ctx, where, userID, ch, "the card's ↩️ Reopen", false, cardShowed(userID, time.Time{}, false))
}

// cardShowed is what a task must be for a tap on its card to apply: the
// tapping person's (nod.Task.Owner), open if open (else closed), and, for
// an open one, with the reminder the card showed (zero: none). Anything
// else is a card out of date, nod.ErrDecided: the person tapped on what
// is no longer there.
func cardShowed(userID nod.UserID, shown time.Time, open bool) func(*nod.Task) error {
	return func(cur *nod.Task) error {
		if o := cur.Owner(); o != 0 && o != userID {
			return fmt.Errorf("task %q is user %d's: %w", cur.Title, o, nod.ErrForbidden)
		}
		closed := cur.Status == nod.StatusDone || cur.Status == nod.StatusRejected
		if closed == open {
			return fmt.Errorf("task %q is %s since its card was shown: %w", cur.Title, cur.Status, nod.ErrDecided)
		}
		if !open {
			return nil
		}
		if (cur.RemindAt == nil) != shown.IsZero() || (cur.RemindAt != nil && cur.RemindAt.Unix() != shown.Unix()) {
			return fmt.Errorf("the reminder of task %q moved since its card was shown: %w", cur.Title, nod.ErrDecided)
		}
		return nil
	}
}

// Chain follows undo entry u's chain of reverts back to the entry of the
// change it started from, root. odd says u is an odd step along it: the
// entry of an Undo, so that taking u back would apply again a change the
// person took back (the entry of a Redo, an even step, takes it back).
// An entry it cannot read ends the chain there.
func (c *Service) Chain(ctx context.Context, chatID nod.ChatID, u nod.UndoEntry) (root nod.UndoEntry, odd bool) {
	for range 64 { // a chain of undos and redos; bounded all the same
		if u.Reverts == "" {
			break
		}
		odd = !odd
		next, err := c.undos.UndoEntry(ctx, chatID, u.Reverts)
		if err != nil {
			break
		}
		u = next
	}
	return u, odd
}

// Taps are the person's taps on a task itself rather than on a change
// set: a reminder's ✓ Done and ⏰, a task card's buttons. Each is their
// own explicit change, applied at once, audited and undoable.
type Taps struct{ c *Service }

// Taps returns the service's taps on tasks.
func (c *Service) Taps() *Taps { return &Taps{c} }
