package storage

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// eventsSQL reads Events' three sources in one statement: it runs on
// nearly every turn. A status or reminder the person set themselves,
// outside a turn and not by deciding a proposal, came from a reminder's
// buttons. Each row is its source, two texts, a reason (an undo's task
// id), a time, a title, who did it and, for a decision, the person's
// answer in words that made it (an undo's tool). Its audit terms are
// those of the index audit_log_events (migration 00026), which only they
// let the query use; a row nod redacted when it forgot its person tells
// of nothing.
const eventsSQL = `SELECT 'd', d.verdict, d.summary, d.reason, d.created_at, COALESCE(t.title, ''), d.user_id, d.words FROM decisions d
		JOIN change_sets s ON s.id = d.set_id AND s.thread = $3
		LEFT JOIN change_items i ON i.id = d.item_id LEFT JOIN tasks t ON t.id = i.task_id
		WHERE d.chat_id = $1 AND d.created_at > $2 AND NOT (d.verdict = 'confirmed' AND substr(d.tool, 1, 5) = 'mcp__')
		UNION ALL SELECT 'u', CASE WHEN u.redoes = 1 THEN 'redo' ELSE '' END, u.summary, u.task_id, u.undone_at, COALESCE(t.title, ''), u.user_id, u.tool FROM undo_entries u LEFT JOIN tasks t ON t.id = u.task_id
		WHERE u.chat_id = $1 AND u.thread = $3 AND u.undone_at > $2
		UNION ALL SELECT 'x', state, tool, failure, done_at, result, user_id, args FROM external_calls
		WHERE chat_id = $1 AND thread = $3 AND done_at > $2 AND (set_id <> '' OR state = 'unknown')
		UNION ALL SELECT 'a', tool, args, reason, created_at, '', user_id, outcome FROM audit_log WHERE chat_id = $1 AND created_at > $2 AND redacted = 0
		AND ((outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode', 'interrupted'))
		OR (outcome = 'executed' AND user_confirmed <> 0 AND tool IN ('set_task_status', 'set_task_reminder'))
		OR (outcome = 'rejected' AND tool = 'delete_task')
		OR (outcome IN ('confirmed', 'rejected', 'undone') AND tool = 'set_chat_timezone')
		OR (outcome = 'executed' AND tool IN ('tz', 'location')))`

// Events returns what happened in topic at after since outside the
// conversation with the agent, oldest first: decisions on the topic's
// proposals, undos and redos of changes made in it, and nod's stop before
// it answered there; and, as the chat's tasks and modes are every topic's,
// the chat's deletions and restores, ticks on task cards and mode changes.
func (db *Conversation) Events(ctx context.Context, at nod.Topic, since time.Time) ([]nod.Event, error) {
	var rs []eventRow
	if err := db.readOne(ctx, eventsRead(eventsSQL, []any{at.ChatID, micros(since), at.Thread}, &rs)); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return db.events(ctx, at, rs)
}

// eventsSinceLastSQL is eventsSQL after the topic's latest message ($1
// the chat, $2 the thread): none when the topic has none.
var eventsSinceLastSQL = func() string {
	s := strings.ReplaceAll(eventsSQL, "$2", "§")
	s = strings.ReplaceAll(s, "$3", "$2")
	return strings.ReplaceAll(s, "§", "(SELECT created_at FROM messages WHERE chat_id = $1 AND thread = $2 ORDER BY seq DESC LIMIT 1)")
}()

// events makes the events of rows rs.
func (db *Conversation) events(ctx context.Context, at nod.Topic, rs []eventRow) ([]nod.Event, error) {
	chatID := at.ChatID
	titles := map[nod.TaskID]nod.Task{}
	task := func(id nod.TaskID) nod.Task {
		if t, ok := titles[id]; ok {
			return t
		}
		t, _ := getTask(ctx, db.reader(), chatID, id) // a purged task has no title left
		titles[id] = t
		return t
	}
	thread := "" // as Interrupted records it
	if at.Thread != 0 {
		thread = strconv.Itoa(int(at.Thread))
	}
	out := make([]nod.Event, 0, len(rs))
	for _, r := range rs {
		if r.source == "a" && nod.Tool(r.a) == nod.ToolInterrupted && (nod.AuditEntry{Args: []byte(r.b)}).Arg("thread") != thread {
			continue // another topic's message went unanswered
		}
		e := nod.Event{Reason: r.reason, At: fromMicros(r.at), Task: r.title, UserID: r.user, Words: r.words}
		switch r.source {
		case "d": // a decision: verdict, summary
			e.Kind, e.Summary = nod.EventConfirmed, r.b
			if r.a == string(nod.Rejected) {
				e.Kind = nod.EventRejected
			}
		case "u": // an undo: whether it redid, summary, its task's id, its tool
			e.Kind, e.Summary, e.TaskID, e.Tool, e.Reason, e.Words = nod.EventUndone, r.b, nod.TaskID(r.reason), nod.Tool(r.words), "", ""
			if r.a != "" {
				e.Kind = nod.EventRedone // an Undo's entry taken back
			}
		case "x": // an external call a tap confirmed, or one cut short: state, tool
			callEvent(&e, r)
		case "a": // an audited action: tool, args
			e.Words = ""
			auditEvent(&e, nod.AuditEntry{Tool: nod.Tool(r.a), Args: []byte(r.b), Outcome: nod.Outcome(r.words)}, task)
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b nod.Event) int { return a.At.Compare(b.At) })
	if chatID.Group() {
		if err := db.nameMembers(ctx, chatID, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// eventRow is a row of eventsSQL.
type eventRow struct {
	source, a, b, reason, title, words string
	at                                 int64
	user                               nod.UserID
}

// eventsRead reads the rows of query, eventsSQL or a variant, into rs by
// source as the query lists them: Events sorts them by time after.
func eventsRead(query string, args []any, rs *[]eventRow) read {
	return read{query: query, args: args, scan: func(rows scanner) error {
		var out []eventRow
		for rows.Next() {
			var r eventRow
			if err := rows.Scan(&r.source, &r.a, &r.b, &r.reason, &r.at, &r.title, &r.user, &r.words); err != nil {
				return err
			}
			out = append(out, r)
		}
		// UNION ALL promises no order: sources in the query's order, so that
		// events at the same time stay in it after the sort by time.
		slices.SortStableFunc(out, func(a, b eventRow) int { return strings.Index("duxa", a.source) - strings.Index("duxa", b.source) })
		*rs = out
		return nil
	}}
}

// callEvent fills in e what the external call of row r came to: r.a is
// its state, r.b its tool, r.reason why it failed, r.title its stored
// result and r.words its arguments.
func callEvent(e *nod.Event, r eventRow) {
	e.Task, e.Words, e.Summary = "", "", r.b+" "+r.words
	res := decodeResult(r.title)
	switch {
	case nod.CallState(r.a) == nod.CallUnknown:
		e.Kind = nod.EventCallUnknown
	case r.reason != "" || res.IsError:
		e.Kind, e.Reason = nod.EventCallFailed, firstLines(r.reason+res.Text)
	default:
		e.Kind, e.Value = nod.EventCallRan, firstLines(res.Text)
		if res.Text == "" && len(res.Structured) > 0 {
			e.Value = firstLines(string(res.Structured))
		}
	}
}

// auditEvent fills in e what the audited action a did; task reads the
// task a names, for its title and checklist.
func auditEvent(e *nod.Event, a nod.AuditEntry, task func(id nod.TaskID) nod.Task) {
	taskID := nod.TaskID(a.Arg("task_id"))
	if taskID != "" {
		e.Task, e.TaskID = task(taskID).Title, taskID
	}
	switch a.Tool {
	case nod.ToolDeleteTask:
		e.Kind = nod.EventDeleted
		if a.Outcome == nod.OutcomeRejected {
			e.Kind, e.Value = nod.EventDeletionKept, a.Arg("waiting") // e.Reason says how
		}
	case nod.ToolRestoreTask:
		e.Kind = nod.EventRestored
	case nod.ToolToggleItem:
		e.Kind = nod.EventUnticked
		if a.Arg("isChecked") == "true" {
			e.Kind = nod.EventTicked
		}
		t := task(taskID)
		if it, ok := t.Item(nod.ItemID(a.Arg("id"))); ok {
			e.Value = it.Title
		}
	case "mode":
		e.Kind, e.Value = nod.EventMode, a.Arg("mode")
	case "interrupted":
		e.Kind, e.Value = nod.EventInterrupted, a.Arg("text")
	case nod.ToolSetTimezone, nod.ToolTZ, nod.ToolLocation: // the zone set outside a turn
		e.Kind, e.Value, e.Summary, e.Reason = nod.EventZone, a.Arg("timezone"), a.Arg("before"), string(a.Tool)
		e.Reminders, _ = strconv.Atoi(a.Arg("reminders"))
		if a.Tool == nod.ToolSetTimezone {
			e.Reason = string(a.Outcome)
		}
	case nod.ToolSetStatus: // a reminder's or card's ✓ Done, a card's ↩️ Reopen
		e.Kind = nod.EventRemindDone
		if st := nod.Status(a.Arg("status")); st != nod.StatusDone {
			e.Kind, e.Value = nod.EventReopened, string(st)
		}
	case nod.ToolSetReminder: // a reminder's ⏰, or ✓ Done on a repeating one
		e.Kind, e.Value = nod.EventSnoozed, a.Arg("remind_at")
		if a.Arg("occurrence_done") == "true" {
			e.Kind, e.Reason = nod.EventOccurrenceDone, a.Arg("was")
		}
	}
}

// nameMembers names the group's members who did the events, each read
// once.
func (db *Conversation) nameMembers(ctx context.Context, chatID nod.ChatID, events []nod.Event) error {
	members := Settings{db.core}
	names := map[nod.UserID]string{}
	for i, e := range events {
		if e.UserID == 0 {
			continue
		}
		name, ok := names[e.UserID]
		if !ok {
			var err error
			if name, err = members.MemberName(ctx, chatID, e.UserID); err != nil {
				return fmt.Errorf("events: %w", err)
			}
			names[e.UserID] = name
		}
		events[i].Name = name
	}
	return nil
}
