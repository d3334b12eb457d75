package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

const taskColumns = `id, chat_id, title, description, status, priority, estimate_minutes, due_date, labels, created_at, updated_at, deleted_at, remind_at, remind_by, repeat, created_by, remind_clock, remind_zone`

// Task returns a task of the chat that is not in the trash. A task of
// another chat is nod.ErrNotFound, exactly like a missing one.
func (db *Tasks) Task(ctx context.Context, chatID nod.ChatID, id nod.TaskID) (nod.Task, error) {
	t, err := getTask(ctx, db.reader(), chatID, id)
	if err != nil {
		return nod.Task{}, err
	}
	if t.DeletedAt != nil {
		// Not found for whoever only changes live tasks; the trash for
		// whoever says why.
		return nod.Task{}, fmt.Errorf("task %s: %w (%w)", id, nod.ErrTrashed, nod.ErrNotFound)
	}
	return t, nil
}

// SameTitle reports whether another task of the chat, not in the
// trash, has task id's title, in any case: typed to confirm a deletion,
// the two read the same.
func (db *Tasks) SameTitle(ctx context.Context, chatID nod.ChatID, id nod.TaskID, title string) (bool, error) {
	_, same, err := twinSince(ctx, db.reader(), chatID, id, title, time.Time{})
	return same, err
}

// ListTasks returns the chat's tasks outside the trash, oldest first: all
// of them, read whole, for tools and tests. Whatever serves a person or
// the agent reads a page (TaskPage, FocusTasks).
func (db *Tasks) ListTasks(ctx context.Context, chatID nod.ChatID, f nod.TaskFilter) ([]nod.Task, error) {
	rows, err := db.reader().QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks WHERE chat_id = $1 AND deleted_at IS NULL ORDER BY seq`, chatID)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	tasks, err := scanTasks(rows)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	tasks = slices.DeleteFunc(tasks, func(t nod.Task) bool { return !f.Match(t) })
	if err := loadChecklists(ctx, db.reader(), tasks); err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	return tasks, nil
}

// getTask reads a task of the chat, trashed or not, with its checklist,
// in one statement. In a PostgreSQL write transaction it goes out with the
// writes that wait.
func getTask(ctx context.Context, q conn, chatID nod.ChatID, id nod.TaskID) (nod.Task, error) {
	return readTask(ctx, q, chatID, id, nil)
}

// readTask is getTask, and with card (not nil) the message of the task's
// latest card read in the same statement, 0 if it has none.
func readTask(ctx context.Context, q conn, chatID nod.ChatID, id nod.TaskID, card *int) (nod.Task, error) {
	var (
		t     nod.Task
		found bool
	)
	query := taskWithChecklistSQL
	if card != nil {
		query = taskWithCardSQL
	}
	err := q.queryRows(ctx, query, []any{id, chatID}, func(rows scanner) error {
		return scanTaskRows(rows, card != nil, func(row nod.Task, c int) {
			t, found = row, true
			if card != nil {
				*card = c
			}
		})
	})
	if err != nil {
		return nod.Task{}, fmt.Errorf("get task %s: %w", id, err)
	}
	if !found {
		return nod.Task{}, fmt.Errorf("task %s: %w", id, nod.ErrNotFound)
	}
	readUnderLock(q, chatID, id)
	return t, nil
}

// readUnderLock notes a task read in a write transaction that holds its
// chat (SQLite's writer is exclusive; on PostgreSQL, under the chat's
// lock): it stays as read but for this transaction's own writes.
func readUnderLock(q conn, chatID nod.ChatID, id nod.TaskID) {
	if q.memo != nil && (!q.db.postgres || q.memo.locked[chatID]) {
		q.memo.read[id] = true
	}
}

// scanTaskRows reads rows of taskSelect (then, with card, a card's
// message), a row for each checklist item, a task's rows together, and
// hands each task to each with its card's message.
func scanTaskRows(rows scanner, card bool, each func(t nod.Task, card int)) error {
	var (
		t     nod.Task
		c     int
		found bool
	)
	for rows.Next() {
		var (
			item, title, by sql.NullString
			checked, at     sql.NullInt64
			rowCard         int
		)
		tail := []any{&item, &title, &checked, &by, &at}
		if card {
			tail = append(tail, &rowCard)
		}
		row, err := scanTask(rows, nil, tail...)
		if err != nil {
			return err
		}
		if !found || row.ID != t.ID {
			if found {
				each(t, c)
			}
			t, c, found = row, rowCard, true
		}
		if item.Valid {
			t.Checklist = append(t.Checklist, nod.ChecklistItem{ID: nod.ItemID(item.String), Title: title.String, Checked: checked.Int64 != 0,
				CheckedBy: nod.Actor(by.String).Normalize(), CheckedAt: timePtr(at)})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if found {
		each(t, c)
	}
	return nil
}

// carded is a task as a decision's transaction read it, with its card's
// message (0 if it has none).
type carded struct {
	task nod.Task
	card int
}

// readItemTasksAhead queues, on PostgreSQL, the read of the tasks that
// set setID's pending items numbered ns (all, if ns is nil) change, to go
// out with the transaction's next statement: a decision reads its set
// and its tasks in one round trip. It must follow the chat's lock. The
// map fills once the read has gone out (nil on SQLite, where a round
// trip costs nothing); a task it lacks is read alone.
func readItemTasksAhead(ctx context.Context, tx conn, chatID nod.ChatID, setID nod.SetID, ns []int) (map[nod.TaskID]carded, error) {
	if tx.pg == nil {
		return nil, nil
	}
	ahead := map[nod.TaskID]carded{}
	query, args := itemTasksSQL, []any{setID, chatID}
	if ns != nil {
		query, args = itemTasksNumberedSQL, append(args, ns)
	}
	err := tx.readLater(ctx, query, args, func(rows scanner) error {
		return scanTaskRows(rows, true, func(t nod.Task, card int) {
			ahead[t.ID] = carded{t, card}
			readUnderLock(tx, chatID, t.ID)
		})
	})
	return ahead, err
}

// taskWithChecklistSQL reads task $1 of chat $2, a row for each of its
// checklist's items in order (one with no item if it has none);
// taskWithCardSQL adds the message of the task's card, 0 if none.
var (
	taskWithChecklistSQL = taskSelect + taskFrom
	taskWithCardSQL      = taskSelect + `, COALESCE((SELECT message_id FROM cards WHERE chat_id = $2 AND task_id = $1), 0)` + taskFrom
	taskSelect           = `SELECT ` + strings.ReplaceAll("t."+taskColumns, ", ", ", t.") + `, c.id, c.title, c.checked, c.checked_by, c.checked_at`
)

// itemTasksSQL reads, as taskWithCardSQL does, the tasks of set $1's
// pending items in chat $2, a task's rows together (PostgreSQL only);
// itemTasksNumberedSQL those of the items numbered in $3.
var (
	itemTasksFrom = taskSelect + `, COALESCE((SELECT message_id FROM cards WHERE chat_id = $2 AND task_id = t.id), 0)
	FROM tasks t LEFT JOIN checklist_items c ON c.task_id = t.id
	WHERE t.chat_id = $2 AND t.id IN (SELECT task_id FROM change_items WHERE set_id = $1 AND status = 'pending'`
	itemTasksSQL         = itemTasksFrom + `) ORDER BY t.id, c.position`
	itemTasksNumberedSQL = itemTasksFrom + ` AND n = ANY($3)) ORDER BY t.id, c.position`
)

const taskFrom = `
	FROM tasks t LEFT JOIN checklist_items c ON c.task_id = t.id WHERE t.id = $1 AND t.chat_id = $2 ORDER BY c.position`

func scanTasks(rows *sql.Rows) ([]nod.Task, error) {
	defer rows.Close()
	var tasks []nod.Task
	for rows.Next() {
		t, err := scanTask(rows, nil)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	return tasks, rows.Err()
}

// scanTask scans taskColumns, after a row's seq where that is read too
// (non-nil), and before the columns tail scans into.
func scanTask(rows scanner, seq *int64, tail ...any) (nod.Task, error) {
	var (
		t                nod.Task
		est              sql.NullInt64
		due              sql.NullString
		labels           string
		created, updated int64
		deleted, remind  sql.NullInt64
		clock            sql.NullInt64
		zone             sql.NullString
		status, priority string
	)
	var dest []any
	if seq != nil {
		dest = append(dest, seq)
	}
	dest = append(dest, &t.ID, &t.ChatID, &t.Title, &t.Description, &status, &priority, &est, &due, &labels, &created, &updated, &deleted, &remind, &t.RemindBy, &t.Repeat, &t.CreatedBy, &clock, &zone)
	dest = append(dest, tail...)
	if err := rows.Scan(dest...); err != nil {
		return nod.Task{}, err
	}
	t.Status, t.Priority = nod.Status(status), nod.Priority(priority)
	if est.Valid {
		v := int(est.Int64)
		t.EstimateMinutes = &v
	}
	t.DueDate = due.String
	if err := json.Unmarshal([]byte(labels), &t.Labels); err != nil {
		return nod.Task{}, fmt.Errorf("task %s labels: %w", t.ID, err)
	}
	t.CreatedAt, t.UpdatedAt, t.DeletedAt, t.RemindAt = fromMicros(created), fromMicros(updated), timePtr(deleted), timePtr(remind)
	if clock.Valid && t.RemindAt != nil {
		t.RemindClock = &nod.Clock{Offset: int(clock.Int64), Zone: zone.String}
	}
	return t, nil
}

// loadChecklists fills the checklists of tasks with one query.
func loadChecklists(ctx context.Context, q conn, tasks []nod.Task) error {
	if len(tasks) == 0 {
		return nil
	}
	args := make([]any, len(tasks))
	for i, t := range tasks {
		args[i] = t.ID
	}
	rows, err := q.QueryContext(ctx, checklistsSQL+`(`+params(1, len(tasks))+`) ORDER BY task_id, position`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := scanChecklists(rows, tasks); err != nil {
		return err
	}
	return rows.Err()
}

// checklistsSQL reads checklist items, of the tasks the IN list after it
// names.
const checklistsSQL = `SELECT task_id, id, title, checked, checked_by, checked_at FROM checklist_items WHERE task_id IN `

// scanChecklists appends the items of checklistsSQL's rows to the
// checklists of tasks.
func scanChecklists(rows scanner, tasks []nod.Task) error {
	idx := make(map[nod.TaskID]int, len(tasks))
	for i, t := range tasks {
		idx[t.ID] = i
	}
	for rows.Next() {
		var (
			taskID nod.TaskID
			it     nod.ChecklistItem
			chk    int
			by     sql.NullString
			at     sql.NullInt64
		)
		if err := rows.Scan(&taskID, &it.ID, &it.Title, &chk, &by, &at); err != nil {
			return err
		}
		i, ok := idx[taskID]
		if !ok {
			return fmt.Errorf("checklist item %s of task %s, not read", it.ID, taskID)
		}
		it.Checked, it.CheckedBy, it.CheckedAt = chk != 0, nod.Actor(by.String).Normalize(), timePtr(at)
		tasks[i].Checklist = append(tasks[i].Checklist, it)
	}
	return nil
}

// ChecklistOwner returns the task holding checklist item itemID in the chat.
func (db *Tasks) ChecklistOwner(ctx context.Context, chatID nod.ChatID, itemID nod.ItemID) (nod.Task, error) {
	var taskID nod.TaskID
	err := db.reader().QueryRowContext(ctx, `SELECT c.task_id FROM checklist_items c JOIN tasks t ON t.id = c.task_id
		WHERE c.id = $1 AND t.chat_id = $2 AND t.deleted_at IS NULL`, itemID, chatID).Scan(&taskID)
	if noRows(err) {
		return nod.Task{}, fmt.Errorf("checklist item %s: %w", itemID, nod.ErrNotFound)
	}
	if err != nil {
		return nod.Task{}, fmt.Errorf("checklist item %s: %w", itemID, err)
	}
	return db.Task(ctx, chatID, taskID)
}

// SetCardMessage records message msgID as the chat's latest card of task.
func (db *Messages) SetCardMessage(ctx context.Context, chatID nod.ChatID, taskID nod.TaskID, msgID int) error {
	_, err := db.exec(ctx, `INSERT INTO cards (chat_id, task_id, message_id) VALUES ($1, $2, $3)
		ON CONFLICT (chat_id, task_id) DO UPDATE SET message_id = excluded.message_id`, chatID, taskID, msgID)
	if err != nil {
		return fmt.Errorf("remember card of task %s: %w", taskID, err)
	}
	return nil
}

// CardMessages returns the message of the chat's latest card of each of
// tasks that has one, in one statement.
func (db *Messages) CardMessages(ctx context.Context, chatID nod.ChatID, tasks []nod.TaskID) (map[nod.TaskID]int, error) {
	out := map[nod.TaskID]int{}
	if len(tasks) == 0 {
		return out, nil
	}
	args := []any{chatID}
	var in strings.Builder
	for i, t := range tasks {
		if i > 0 {
			in.WriteString(", ")
		}
		args = append(args, t)
		fmt.Fprintf(&in, "$%d", len(args))
	}
	rows, err := db.reader().QueryContext(ctx, `SELECT task_id, message_id FROM cards WHERE chat_id = $1 AND task_id IN (`+in.String()+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t nod.TaskID
		var id int
		if err := rows.Scan(&t, &id); err != nil {
			return nil, fmt.Errorf("cards: %w", err)
		}
		out[t] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	return out, nil
}
