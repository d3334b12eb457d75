package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// columns maps a change's fields to the tasks table.
var columns = map[nod.Field]string{
	nod.FieldTitle: "title", nod.FieldDescription: "description", nod.FieldStatus: "status",
	nod.FieldPriority: "priority", nod.FieldEstimate: "estimate_minutes", nod.FieldDue: "due_date",
	nod.FieldLabels: "labels", nod.FieldReminder: "remind_at", nod.FieldRepeat: "repeat",
}

// remindDue is what a task's remind_due holds for reminder at, written
// at now: the moment itself while it is ahead, else nothing. A reminder
// set in the past never fires, so that undoing a snooze does not fire
// the reminder it followed a second time.
func remindDue(at *time.Time, now time.Time) sql.NullInt64 {
	if at == nil || !at.After(now) {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*at), Valid: true}
}

// sqlValue is a field's canonical value as its column stores it.
func sqlValue(f nod.Field, v string) (any, error) {
	switch f {
	case nod.FieldEstimate:
		if v == "" {
			return sql.NullInt64{}, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("estimate %q: %w", v, nod.ErrInvalid)
		}
		return sql.NullInt64{Int64: n, Valid: true}, nil
	case nod.FieldDue:
		return nullString(v), nil
	case nod.FieldReminder:
		if v == "" {
			return sql.NullInt64{}, nil
		}
		at, _, err := nod.ParseReminderValue(v)
		if err != nil {
			return nil, fmt.Errorf("reminder %q: %w", v, nod.ErrInvalid)
		}
		return sql.NullInt64{Int64: micros(at), Valid: true}, nil
	}
	return v, nil
}

// reminderOwner is whom a change by by leaves a task's reminder to: one
// that marks this time of a repeating reminder done (or its undo) moves
// it on, but it stays the person's who set it. Played, Bob's "watered
// them" made Alice's weekly reminder his, and her ✓ Done was refused.
func reminderOwner(by nod.UserID, before *nod.Task, tool nod.Tool, summary string) nod.UserID {
	if before != nil && before.RemindBy != 0 && (nod.ChangeItem{Tool: tool, Summary: summary}).CompletesOccurrence() {
		return before.RemindBy
	}
	return by
}

// writeChange writes exactly what c changes, each part only if it still
// holds the value c expects: the task row's fields in one conditional
// UPDATE, then each checklist item. A task in the trash is changed only by
// a change that expects it there (a restore). When a part does not hold,
// nothing is written and the error wraps nod.ErrStale (as a nod.Conflict),
// nod.ErrTrashed or nod.ErrNotFound; the caller's transaction rolls back.
// created is the new task of a creating change. at is the topic the
// change is made in: a reminder it sets goes there, and belongs to by,
// as does a task it creates.
func writeChange(ctx context.Context, q conn, at nod.Topic, by nod.UserID, c nod.Change, after *nod.Task, now time.Time) error {
	chatID := at.ChatID
	if after != nil && after.RemindAt != nil && (c.Created || c.Touches(nod.FieldReminder)) {
		after.RemindBy = by
	}
	if c.Created {
		after.CreatedBy = by
		if err := insertTask(ctx, q, *after); err != nil {
			return err
		}
		return remindIn(ctx, q, at, after.ID, after.RemindAt != nil)
	}
	if err := writeTaskRow(ctx, q, at, by, c, now); err != nil {
		return err
	}
	for _, ic := range c.Items {
		ok, err := writeItem(ctx, q, c.TaskID, ic, after)
		if err != nil {
			return fmt.Errorf("write %s: %w", c, err)
		}
		if !ok {
			return conflict(ctx, q, chatID, c)
		}
	}
	return nil
}

// writeTaskRow writes c's fields and stamps the task's updated_at, if the
// task holds what c expects and is outside the trash (or in it, for a
// restore). A change of checklist items only, to a task this transaction
// stamped at the same time already, needs no statement: nothing else can
// have written the task since. A reminder the change sets goes to topic.
func writeTaskRow(ctx context.Context, q conn, topic nod.Topic, by nod.UserID, c nod.Change, now time.Time) error {
	chatID := topic.ChatID
	if len(c.Fields) == 0 && q.memo != nil {
		if at, ok := q.memo.touched[c.TaskID]; ok && at.Equal(now) {
			return nil
		}
	}
	sets := []string{"updated_at = $1"}
	args := []any{micros(now), c.TaskID, chatID}
	conds := []string{"id = $2", "chat_id = $3"}
	trash, trashes := "deleted_at IS NULL", false
	for _, f := range c.Fields {
		if f.Field == nod.FieldTrash {
			trashes = true
			if f.Before == nod.TrashedValue {
				trash = "deleted_at IS NOT NULL"
			}
			var at sql.NullInt64
			if f.After == nod.TrashedValue {
				at = sql.NullInt64{Int64: micros(now), Valid: true}
			}
			args = append(args, at)
			sets = append(sets, fmt.Sprintf("deleted_at = $%d", len(args)))
			continue
		}
		col, ok := columns[f.Field]
		if !ok {
			return fmt.Errorf("change of unknown field %q: %w", f.Field, nod.ErrInvalid)
		}
		before, err := sqlValue(f.Field, f.Before)
		if err != nil {
			return err
		}
		after, err := sqlValue(f.Field, f.After)
		if err != nil {
			return err
		}
		args = append(args, after, before)
		sets = append(sets, fmt.Sprintf("%s = $%d", col, len(args)-1))
		conds = append(conds, fmt.Sprintf("%s IS NOT DISTINCT FROM $%d", col, len(args)))
		if f.Field == nod.FieldReminder {
			var at *time.Time
			if v := after.(sql.NullInt64); v.Valid {
				t := fromMicros(v.Int64)
				at = &t
			}
			due := remindDue(at, now)
			args = append(args, due, topic.Thread, by)
			set := fmt.Sprintf("remind_due = $%d", len(args)-2)
			if at != nil && !due.Valid {
				// A repeating reminder put back in the past (Undo of a ✓ Done)
				// keeps its next occurrence due.
				set = fmt.Sprintf("remind_due = CASE WHEN repeat <> '' THEN remind_due ELSE $%d END", len(args)-2)
			}
			sets = append(sets, set, fmt.Sprintf("remind_thread = $%d", len(args)-1), fmt.Sprintf("remind_by = $%d", len(args)))
			// The clock it was given in is part of the reminder's value.
			clock, zone := valueClock(f.After)
			was, wasZone := valueClock(f.Before)
			args = append(args, clock, was, zone, wasZone)
			sets = append(sets, fmt.Sprintf("remind_clock = $%d", len(args)-3), fmt.Sprintf("remind_zone = $%d", len(args)-1))
			conds = append(conds, fmt.Sprintf("remind_clock IS NOT DISTINCT FROM $%d", len(args)-2), fmt.Sprintf("remind_zone IS NOT DISTINCT FROM $%d", len(args)))
		}
	}
	conds = append(conds, trash)
	query := `UPDATE tasks SET ` + strings.Join(sets, ", ") + ` WHERE ` + strings.Join(conds, " AND ")
	if readHere(q, c.TaskID) {
		if err := q.laterOne(ctx, errRetry, query, args...); err != nil {
			return fmt.Errorf("write %s: %w", c, err)
		}
	} else {
		res, err := q.ExecContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("write %s: %w", c, err)
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return conflict(ctx, q, chatID, c)
		}
	}
	if q.memo != nil {
		if !trashes {
			q.memo.touched[c.TaskID] = now // outside the trash, stamped now
		} else {
			delete(q.memo.touched, c.TaskID)
		}
	}
	return nil
}

// remindIn makes task id's reminder go to topic at, when the task has one
// and at is a forum topic.
func remindIn(ctx context.Context, q conn, at nod.Topic, id nod.TaskID, reminds bool) error {
	if !reminds || at.Thread == 0 {
		return nil
	}
	if _, err := q.ExecContext(ctx, `UPDATE tasks SET remind_thread = $1 WHERE id = $2`, at.Thread, id); err != nil {
		return fmt.Errorf("remind task %s in topic %d: %w", id, at.Thread, err)
	}
	return nil
}

// itemMatches is the condition that a checklist row holds item state
// $k…$k+3 (title, checked, provenance, checked_at); provenance other than
// agent reads as user, as nod.Actor.Normalize does.
func itemMatches(k int) string {
	return fmt.Sprintf(`title = $%d AND checked = $%d AND (CASE WHEN checked_by = 'agent' THEN 'agent' ELSE 'user' END) = $%d AND checked_at IS NOT DISTINCT FROM $%d`, k, k+1, k+2, k+3)
}

func itemValues(it *nod.ChecklistItem) []any {
	return []any{it.Title, boolInt(it.Checked), string(it.CheckedBy.Normalize()), nullMicros(it.CheckedAt)}
}

// writeItem writes one checklist item change; false if the item is not
// as the change expects. after, if known, is the task after the change.
func writeItem(ctx context.Context, q conn, taskID nod.TaskID, ic nod.ItemChange, after *nod.Task) (bool, error) {
	var (
		query string
		args  []any
	)
	switch {
	case ic.Before == nil:
		if after == nil || len(after.Checklist) == 0 || after.Checklist[len(after.Checklist)-1].ID != ic.After.ID {
			return insertItem(ctx, q, taskID, *ic.After, ic.Prev)
		}
		// At the end of the checklist, in one statement: no item moves.
		// An item with its id already is not as the change expects.
		query = `INSERT INTO checklist_items (id, task_id, position, title, checked, checked_by, checked_at)
			SELECT $1, $2, COALESCE(MAX(position), -1) + 1, $3, $4, $5, $6 FROM checklist_items WHERE task_id = $2 ON CONFLICT (id) DO NOTHING`
		args = append([]any{ic.After.ID, taskID}, itemValues(ic.After)...)
	case ic.After == nil:
		query = `DELETE FROM checklist_items WHERE id = $1 AND task_id = $2 AND ` + itemMatches(3)
		args = append([]any{ic.Before.ID, taskID}, itemValues(ic.Before)...)
	default:
		query = `UPDATE checklist_items SET title = $1, checked = $2, checked_by = $3, checked_at = $4 WHERE id = $5 AND task_id = $6 AND ` + itemMatches(7)
		args = append(append(itemValues(ic.After), ic.Before.ID, taskID), itemValues(ic.Before)...)
	}
	if readHere(q, taskID) {
		return true, q.laterOne(ctx, errRetry, query, args...)
	}
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return false, err
	}
	k, err := res.RowsAffected()
	return k == 1, err
}

// readHere reports whether the transaction q runs in read task id while
// nobody else could write it: what it writes of the task, conditioned on
// what it read, misses only if a writer raced it.
func readHere(q conn, id nod.TaskID) bool { return q.memo != nil && q.memo.read[id] }

// insertItem adds an item after item prev ("" for first place; at the end
// when prev is gone), moving the items after it down one place. False if
// an item with its id exists already.
func insertItem(ctx context.Context, q conn, taskID nod.TaskID, it nod.ChecklistItem, prev nod.ItemID) (bool, error) {
	pos := int64(-1)
	if prev != "" {
		err := q.QueryRowContext(ctx, `SELECT position FROM checklist_items WHERE id = $1 AND task_id = $2`, prev, taskID).Scan(&pos)
		if noRows(err) {
			err = q.QueryRowContext(ctx, `SELECT COALESCE(MAX(position), -1) FROM checklist_items WHERE task_id = $1`, taskID).Scan(&pos)
		}
		if err != nil {
			return false, err
		}
	}
	if _, err := q.ExecContext(ctx, `UPDATE checklist_items SET position = position + 1 WHERE task_id = $1 AND position > $2`, taskID, pos); err != nil {
		return false, err
	}
	res, err := q.ExecContext(ctx, `INSERT INTO checklist_items (id, task_id, position, title, checked, checked_by, checked_at) VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (id) DO NOTHING`,
		append([]any{it.ID, taskID, pos + 1}, itemValues(&it)...)...)
	if err != nil {
		return false, err
	}
	k, err := res.RowsAffected()
	return k == 1, err
}

// conflict says why c could not be written: the task is gone, in the
// trash, or one of c's parts changed.
func conflict(ctx context.Context, q conn, chatID nod.ChatID, c nod.Change) error {
	t, err := getTask(ctx, q, chatID, c.TaskID)
	if err != nil {
		return err
	}
	if t.DeletedAt != nil && !c.ExpectsTrashed() {
		return fmt.Errorf("task %q: %w", t.Title, nod.ErrTrashed)
	}
	if cf, ok := c.Conflict(t); ok {
		return fmt.Errorf("task %q: %w", t.Title, cf)
	}
	// Every part holds as read now: a writer that raced this one and
	// lost; the transaction is retried as a serialisation failure.
	return fmt.Errorf("write %s: %w", c, errRetry)
}

// errRetry marks a transaction to run again from the start.
var errRetry = errors.New("concurrent write; retry")

// errAbandoned ends a transaction that neither committed nor reported
// why (its function panicked, or its batch was undone to run again).
var errAbandoned = errors.New("transaction abandoned")

// taskRow is a task's values for insertColumns, in their order.
func taskRow(t nod.Task) ([]any, error) {
	labels, err := json.Marshal(nod.NormalizeLabels(t.Labels))
	if err != nil {
		return nil, err
	}
	var est sql.NullInt64
	if t.EstimateMinutes != nil {
		est = sql.NullInt64{Int64: int64(*t.EstimateMinutes), Valid: true}
	}
	clock, zone := clockOf(t.RemindAt, t.RemindClock)
	return []any{t.ID, t.ChatID, t.Title, t.Description, string(t.Status), string(t.Priority), est, nullString(t.DueDate), string(labels),
		micros(t.CreatedAt), micros(t.UpdatedAt), nullMicros(t.DeletedAt), nullMicros(t.RemindAt), t.RemindBy, t.Repeat, t.CreatedBy, clock, zone, remindDue(t.RemindAt, t.UpdatedAt)}, nil
}

// clockOf is the clock of a reminder at as its columns store it, its
// offset and its place's zone: NULL for the chat's own, and for no
// reminder.
func clockOf(at *time.Time, clock *nod.Clock) (sql.NullInt64, sql.NullString) {
	if at == nil || clock == nil {
		return sql.NullInt64{}, sql.NullString{}
	}
	return sql.NullInt64{Int64: int64(clock.Offset), Valid: true}, nullString(clock.Zone)
}

// valueClock is clockOf a reminder's canonical value.
func valueClock(v string) (sql.NullInt64, sql.NullString) {
	at, clock, err := nod.ParseReminderValue(v)
	if err != nil {
		return sql.NullInt64{}, sql.NullString{}
	}
	return clockOf(&at, clock)
}

// insertColumns are the columns a new task is written with: taskColumns
// and when its reminder falls due.
const insertColumns = taskColumns + `, remind_due`

// insertTaskSQL inserts one task, a parameter for each of insertColumns.
var insertTaskSQL = `INSERT INTO tasks (` + insertColumns + `) VALUES (` + params(1, strings.Count(insertColumns, ",")+1) + `)`

// insertTask inserts a new task with its checklist.
func insertTask(ctx context.Context, q conn, t nod.Task) error {
	row, err := taskRow(t)
	if err != nil {
		return err
	}
	err = q.later(ctx, insertTaskSQL, row...)
	if err != nil {
		return fmt.Errorf("insert task %s: %w", t.ID, err)
	}
	for i, it := range t.Checklist {
		err := q.later(ctx, `INSERT INTO checklist_items (id, task_id, position, title, checked, checked_by, checked_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
			append([]any{it.ID, t.ID, i}, itemValues(&it)...)...)
		if err != nil {
			return fmt.Errorf("insert task %s checklist item %s: %w", t.ID, it.ID, err)
		}
	}
	return nil
}

// The stored form of a change: storage's own, with explicit names, so that
// renaming a Go field never breaks an entry already written.
type (
	changeRecord struct {
		Created bool          `json:"created,omitempty"`
		Fields  []fieldRecord `json:"fields,omitempty"`
		Items   []itemRecord  `json:"items,omitempty"`
	}
	fieldRecord struct {
		Field  string `json:"field"`
		Before string `json:"before"`
		After  string `json:"after"`
	}
	itemRecord struct {
		Before *itemState `json:"before,omitempty"`
		After  *itemState `json:"after,omitempty"`
		Prev   nod.ItemID `json:"prev,omitempty"`
	}
	itemState struct {
		ID        nod.ItemID `json:"id"`
		Title     string     `json:"title"`
		Checked   bool       `json:"checked"`
		CheckedBy string     `json:"checked_by"`
		CheckedAt *int64     `json:"checked_at_us,omitempty"` // unix microseconds
	}
)

func encodeChange(c nod.Change) (string, error) {
	r := changeRecord{Created: c.Created}
	for _, f := range c.Fields {
		r.Fields = append(r.Fields, fieldRecord{string(f.Field), f.Before, f.After})
	}
	for _, ic := range c.Items {
		r.Items = append(r.Items, itemRecord{Before: recordItem(ic.Before), After: recordItem(ic.After), Prev: ic.Prev})
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("encode change: %w", err)
	}
	return string(b), nil
}

func decodeChange(taskID nod.TaskID, s string) (nod.Change, error) {
	var r changeRecord
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nod.Change{}, fmt.Errorf("decode change of task %s: %w", taskID, err)
	}
	c := nod.Change{TaskID: taskID, Created: r.Created}
	for _, f := range r.Fields {
		c.Fields = append(c.Fields, nod.FieldChange{Field: nod.Field(f.Field), Before: f.Before, After: f.After})
	}
	for _, it := range r.Items {
		c.Items = append(c.Items, nod.ItemChange{Before: it.Before.item(), After: it.After.item(), Prev: it.Prev})
	}
	return c, nil
}

func recordItem(it *nod.ChecklistItem) *itemState {
	if it == nil {
		return nil
	}
	s := &itemState{ID: it.ID, Title: it.Title, Checked: it.Checked, CheckedBy: string(it.CheckedBy.Normalize())}
	if it.CheckedAt != nil {
		us := micros(*it.CheckedAt)
		s.CheckedAt = &us
	}
	return s
}

func (s *itemState) item() *nod.ChecklistItem {
	if s == nil {
		return nil
	}
	it := &nod.ChecklistItem{ID: s.ID, Title: s.Title, Checked: s.Checked, CheckedBy: nod.Actor(s.CheckedBy).Normalize()}
	if s.CheckedAt != nil {
		at := fromMicros(*s.CheckedAt)
		it.CheckedAt = &at
	}
	return it
}

// lockChat serialises the writers of one chat on PostgreSQL for the rest
// of the transaction (SQLite's immediate transactions serialise every
// writer already). Taken first in every transaction that decides or
// applies, it orders them all the same way, so they cannot deadlock; the
// audit chain takes the same lock. It goes out with the transaction's next
// statement (pgTx), and so is held before that statement runs.
func (db *core) lockChat(ctx context.Context, q conn, chatID nod.ChatID) error {
	db.heads.begin(q.memo, chatID) // whoever holds the lock may write the chat's audit
	if !db.postgres || q.memo != nil && q.memo.locked[chatID] {
		return nil
	}
	if err := q.later(ctx, `SELECT pg_advisory_xact_lock($1)`, chatID); err != nil {
		return fmt.Errorf("lock chat %d: %w", chatID, err)
	}
	if q.memo != nil {
		q.memo.locked[chatID] = true
	}
	return nil
}
