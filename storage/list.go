package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// openTask and doneTask are the conditions of the two halves of /tasks,
// written as the partial indexes are, so that the planner uses them.
const (
	openTask = `chat_id = $1 AND deleted_at IS NULL AND status NOT IN ('DONE', 'REJECTED')`
	doneTask = `chat_id = $1 AND deleted_at IS NULL AND status IN ('DONE', 'REJECTED')`
)

// labelCond matches tasks carrying the folded label in argument n.
func (db *Tasks) labelCond(n int) string {
	if db.postgres {
		return fmt.Sprintf("EXISTS (SELECT 1 FROM json_array_elements_text(CAST(labels AS json)) AS l(v) WHERE lower(l.v) = $%d)", n)
	}
	return fmt.Sprintf("EXISTS (SELECT 1 FROM json_each(labels) AS l WHERE nod_fold(l.value) = $%d)", n)
}

// listPart is one index range of a /tasks page: its bucket b, the due
// date it sorts by (d, empty outside the first bucket), and its order.
type listPart struct {
	b     int
	d, p  string // the columns, or '' for none
	where []string
	order string
}

// ListPage returns a page of /tasks (see nod.TaskList): p's cursors are
// those of TaskPage, and a page read after or before a task finds its
// place by the task's sort key now. Each half of the order is one index
// range of the page's length: overdue and soon by due date
// (tasks_live_due), the other open tasks by priority and age
// (tasks_open_priority), done ones by age (tasks_live_status). A label
// has the database look through the chat's tasks to count them.
func (db *Tasks) ListPage(ctx context.Context, chatID nod.ChatID, l nod.TaskList, p nod.PageRequest) (nod.TaskPage, error) {
	limit := min(max(p.Limit, 1), nod.MaxPage)
	day, err := time.Parse(nod.DateLayout, l.Today)
	if err != nil {
		return nod.TaskPage{}, fmt.Errorf("list page: today %q: %w", l.Today, nod.ErrInvalid)
	}
	soon := day.AddDate(0, 0, nod.SoonDays).Format(nod.DateLayout)
	args := []any{chatID}
	if !l.Done {
		args = append(args, soon) // $2 of the open list's parts
	}
	var label []string
	if f := nod.FoldLabel(l.Label); f != "" {
		args = append(args, f)
		label = []string{db.labelCond(len(args))}
	}
	q := db.reader()
	page, err := db.countList(ctx, q, chatID, nod.FoldLabel(l.Label))
	if err != nil {
		return nod.TaskPage{}, err
	}
	before := p.Before != ""
	mark := p.After
	if before {
		mark = p.Before
	}
	var key *listKey
	if mark != "" {
		seq, err := parseCursor(mark)
		if err != nil {
			return nod.TaskPage{}, err
		}
		if key, err = db.listKey(ctx, q, chatID, seq, soon); err != nil {
			return nod.TaskPage{}, err
		}
		if key == nil { // the task is gone for good: start over
			return db.ListPage(ctx, chatID, l, nod.PageRequest{Limit: p.Limit})
		}
	}
	parts := db.listParts(l.Done, key, before, label, &args)
	cols := strings.ReplaceAll("t."+taskColumns, ", ", ", t.")
	outer := "f.b, f.d, f.p, f.seq DESC"
	if before {
		outer = "f.b DESC, f.d DESC, f.p DESC, f.seq"
	}
	var sqls []string
	for i, pt := range parts {
		sqls = append(sqls, fmt.Sprintf(`SELECT b, seq, d, p FROM (SELECT %d AS b, seq, %s AS d, %s AS p FROM tasks WHERE %s ORDER BY %s%s) AS k%d`,
			pt.b, pt.d, pt.p, strings.Join(pt.where, " AND "), pt.order, limitSQL(limit+1), i))
	}
	var seqs []int64
	if len(sqls) > 0 {
		rows, err := q.QueryContext(ctx, `SELECT f.seq, `+cols+` FROM (`+strings.Join(sqls, " UNION ALL ")+`) AS f JOIN tasks t ON t.seq = f.seq ORDER BY `+outer+limitSQL(limit+1), args...)
		if err != nil {
			return nod.TaskPage{}, fmt.Errorf("list page: %w", err)
		}
		if seqs, err = scanPage(rows, &page, nil); err != nil {
			return nod.TaskPage{}, fmt.Errorf("list page: %w", err)
		}
	}
	seqs, startOver := settlePage(&page, seqs, limit, p)
	if startOver {
		return db.ListPage(ctx, chatID, l, nod.PageRequest{Limit: p.Limit})
	}
	for _, s := range seqs {
		page.Cursors = append(page.Cursors, cursor(s))
	}
	if err := loadChecklists(ctx, q, page.Tasks); err != nil {
		return nod.TaskPage{}, fmt.Errorf("list page: %w", err)
	}
	return page, nil
}

// countList counts the open (Total) and done (Done) tasks of a list: from
// task_counts, or with a label by looking through the chat's tasks.
func (db *Tasks) countList(ctx context.Context, q conn, chatID nod.ChatID, label string) (nod.TaskPage, error) {
	var page nod.TaskPage
	done := `status IN ('DONE', 'REJECTED')`
	stmt := `SELECT CAST(COALESCE(SUM(CASE WHEN ` + done + ` THEN 0 ELSE n END), 0) AS BIGINT), CAST(COALESCE(SUM(CASE WHEN ` + done + ` THEN n ELSE 0 END), 0) AS BIGINT) FROM task_counts WHERE chat_id = $1`
	args := []any{chatID}
	if label != "" {
		stmt = `SELECT CAST(COALESCE(SUM(CASE WHEN ` + done + ` THEN 0 ELSE 1 END), 0) AS BIGINT), CAST(COALESCE(SUM(CASE WHEN ` + done + ` THEN 1 ELSE 0 END), 0) AS BIGINT) FROM tasks WHERE chat_id = $1 AND deleted_at IS NULL AND ` + db.labelCond(2)
		args = append(args, label)
	}
	if err := q.QueryRowContext(ctx, stmt, args...).Scan(&page.Total, &page.Done); err != nil {
		return nod.TaskPage{}, fmt.Errorf("count list: %w", err)
	}
	return page, nil
}

// listKey is a task's place in the open list: its bucket (0 overdue or due
// soon, 1 the rest), due date, priority and seq.
type listKey struct {
	b   int
	due string
	pri string
	seq int64
}

// listKey reads the sort key of the task with seq, or nil when no task of
// the chat has it any more.
func (db *Tasks) listKey(ctx context.Context, q conn, chatID nod.ChatID, seq int64, soon string) (*listKey, error) {
	var due sql.NullString
	k := listKey{seq: seq}
	err := q.QueryRowContext(ctx, `SELECT due_date, priority FROM tasks WHERE chat_id = $1 AND seq = $2`, chatID, seq).Scan(&due, &k.pri)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list page cursor: %w", err)
	}
	if due.Valid && due.String <= soon {
		k.due = due.String
	} else {
		k.b = 1
	}
	return &k, nil
}

// listParts returns the index ranges that hold the page after (or, when
// before, before) key, appending their arguments to args.
func (db *Tasks) listParts(done bool, key *listKey, before bool, label []string, args *[]any) []listPart {
	arg := func(v any) string {
		*args = append(*args, v)
		return fmt.Sprintf("$%d", len(*args))
	}
	newest, older, newer := "seq DESC", "<", ">"
	if before {
		newest, older, newer = "seq", ">", "<"
	}
	if done {
		var parts []listPart
		for _, s := range []nod.Status{nod.StatusDone, nod.StatusRejected} {
			w := append([]string{`chat_id = $1 AND deleted_at IS NULL AND status = '` + string(s) + `'`}, label...)
			if key != nil {
				w = append(w, "seq "+older+" "+arg(key.seq))
			}
			parts = append(parts, listPart{d: "''", p: "''", where: w, order: newest})
		}
		return parts
	}
	asc := "ASC"
	if before {
		asc = "DESC"
	}
	a := listPart{d: "due_date", p: "priority", where: append([]string{openTask, "due_date IS NOT NULL", "due_date <= $2"}, label...),
		order: "due_date " + asc + ", priority " + asc + ", " + newest}
	b := listPart{b: 1, d: "''", p: "priority", where: append([]string{openTask, "(due_date IS NULL OR due_date > $2)"}, label...),
		order: "priority " + asc + ", " + newest}
	switch {
	case key == nil:
		return []listPart{a, b}
	case key.b == 0:
		d, p, s := arg(key.due), arg(key.pri), arg(key.seq)
		a.where = append(a.where, fmt.Sprintf("(due_date %[1]s %[3]s OR (due_date = %[3]s AND (priority %[1]s %[4]s OR (priority = %[4]s AND seq %[2]s %[5]s))))", newer, older, d, p, s))
		if before {
			return []listPart{a}
		}
		return []listPart{a, b}
	default:
		p, s := arg(key.pri), arg(key.seq)
		b.where = append(b.where, fmt.Sprintf("(priority %[1]s %[3]s OR (priority = %[3]s AND seq %[2]s %[4]s))", newer, older, p, s))
		if before {
			return []listPart{a, b}
		}
		return []listPart{b}
	}
}

// /today's statements: the open tasks due by day $2 (YYYY-MM-DD), counted
// and a page of them in the order it shows them, and a page of the
// reminders from $2 to $3 (microseconds); a page's LIMIT goes after.
const (
	todayDue       = openTask + ` AND due_date IS NOT NULL AND due_date <= $2`
	todayCountSQL  = `SELECT COUNT(*) FROM tasks WHERE ` + todayDue
	todayDueSQL    = `SELECT seq, ` + taskColumns + ` FROM tasks WHERE ` + todayDue + ` ORDER BY due_date, priority, seq DESC`
	todayRemindSQL = `SELECT seq, ` + taskColumns + ` FROM tasks WHERE ` + openTask + ` AND remind_at >= $2 AND remind_at < $3 ORDER BY remind_at, seq`
)

// TodayList returns what /today shows on day today (YYYY-MM-DD) of the
// chat, whose local day runs from from to to: at most limit tasks of each
// kind. Each is an index range that stops at the page, and the count of
// the tasks due reads that index alone (tasks_open_due, tasks_open_remind):
// /today costs the same in a chat of ten thousand tasks as of ten. It is
// two steps of reads, each one round trip on PostgreSQL: the pages and
// the day's ✓ Done taps, then what they name (checklists, tapped tasks).
func (db *Tasks) TodayList(ctx context.Context, chatID nod.ChatID, today string, from, to time.Time, limit int) (nod.TodayList, error) {
	limit = min(max(limit, 1), nod.MaxPage)
	if _, err := time.Parse(nod.DateLayout, today); err != nil {
		return nod.TodayList{}, fmt.Errorf("today list: today %q: %w", today, nod.ErrInvalid)
	}
	var (
		out  nod.TodayList
		taps []nod.DoneReminder
	)
	err := db.readAll(ctx,
		read{query: todayCountSQL, args: []any{chatID, today}, scan: func(rows scanner) error {
			if !rows.Next() {
				return sql.ErrNoRows
			}
			return rows.Scan(&out.DueTotal)
		}},
		read{query: todayDueSQL + limitSQL(limit), args: []any{chatID, today}, scan: pageRows(&out.Due)},
		read{query: todayRemindSQL + limitSQL(limit), args: []any{chatID, micros(from), micros(to)}, scan: pageRows(&out.Reminders)},
		tapsRead(doneTodaySQL+limitSQL(4*limit), chatID, from, to, nil, &taps))
	if err != nil {
		return nod.TodayList{}, fmt.Errorf("today list: %w", err)
	}
	tapped := map[nod.TaskID]nod.Task{}
	var more []read
	for _, tasks := range [][]nod.Task{out.Due, out.Reminders} {
		if len(tasks) > 0 {
			more = append(more, checklistsRead(tasks))
		}
	}
	if len(taps) > 0 {
		more = append(more, tasksRead(chatID, taps, tapped))
	}
	if err := db.readAll(ctx, more...); err != nil {
		return nod.TodayList{}, fmt.Errorf("today list: %w", err)
	}
	// The day's repeating reminders whose time was marked done (✓ Done
	// on a repeating reminder records "was", the time done) and whose
	// task is open with its reminder still moved on past it (an undone
	// one is back among the day's reminders).
	for _, d := range taps {
		if len(out.Done) == limit {
			break
		}
		if t, ok := tapped[d.Task.ID]; ok && stillDone(t, d.At) {
			out.Done = append(out.Done, nod.DoneReminder{Task: t, At: d.At})
		}
	}
	slices.SortStableFunc(out.Done, func(x, y nod.DoneReminder) int { return x.At.Compare(y.At) })
	return out, nil
}

// pageRows reads rows of seq and taskColumns into dst.
func pageRows(dst *[]nod.Task) func(rows scanner) error {
	return func(rows scanner) error {
		for rows.Next() {
			var seq int64
			t, err := scanTask(rows, &seq)
			if err != nil {
				return err
			}
			*dst = append(*dst, t)
		}
		return nil
	}
}

// checklistsRead reads the checklists of tasks into them.
func checklistsRead(tasks []nod.Task) read {
	args := make([]any, len(tasks))
	for i, t := range tasks {
		args[i] = t.ID
	}
	return read{query: checklistsSQL + `(` + params(1, len(tasks)) + `) ORDER BY task_id, position`, args: args,
		scan: func(rows scanner) error { return scanChecklists(rows, tasks) }}
}

// tasksRead reads the tasks the taps name, in the trash or not, with
// their checklists, into out.
func tasksRead(chatID nod.ChatID, taps []nod.DoneReminder, out map[nod.TaskID]nod.Task) read {
	args := []any{chatID}
	for _, id := range slices.Compact(slices.Sorted(func(yield func(nod.TaskID) bool) {
		for _, d := range taps {
			if !yield(d.Task.ID) {
				return
			}
		}
	})) {
		args = append(args, id)
	}
	return read{query: taskSelect + ` FROM tasks t LEFT JOIN checklist_items c ON c.task_id = t.id WHERE t.chat_id = $1 AND t.id IN (` +
		params(2, len(args)-1) + `) ORDER BY t.id, c.position`, args: args,
		scan: func(rows scanner) error {
			return scanTaskRows(rows, false, func(t nod.Task, _ int) { out[t.ID] = t })
		}}
}

// doneTapsSQL reads the chat's taps on reminders since $2, through the
// index audit_log_events (migration 00026), whose terms it repeats: the
// taps since, never the chat's whole log.
const doneTapsSQL = `SELECT args FROM audit_log WHERE chat_id = $1 AND created_at >= $2 AND redacted = 0
	AND ((outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode', 'interrupted'))
	OR (outcome = 'executed' AND user_confirmed <> 0 AND tool IN ('set_task_status', 'set_task_reminder'))
	OR (outcome = 'rejected' AND tool = 'delete_task'))
	AND tool = 'set_task_reminder'`

// tapsRead reads into taps the times of repeating reminders in from..to
// that ✓ Done marked done, by task (only the tasks of only, if given), in
// the order query (doneTodaySQL or doneLatestSQL) reads the taps since a
// day before from (a time may be done ahead).
func tapsRead(query string, chatID nod.ChatID, from, to time.Time, only []nod.TaskID, taps *[]nod.DoneReminder) read {
	return read{query: query, args: []any{chatID, micros(from.Add(-24 * time.Hour))}, scan: func(rows scanner) error {
		type tap struct {
			task nod.TaskID
			at   int64
		}
		seen := map[tap]bool{}
		for rows.Next() {
			var args string
			if err := rows.Scan(&args); err != nil {
				return err
			}
			a := nod.AuditEntry{Args: json.RawMessage(args)}
			at, err := time.Parse(time.RFC3339, a.Arg("was"))
			id := nod.TaskID(a.Arg("task_id"))
			if a.Arg("occurrence_done") != "true" || err != nil || at.Before(from) || !at.Before(to) || only != nil && !slices.Contains(only, id) {
				continue
			}
			if k := (tap{id, at.UnixMicro()}); !seen[k] { // a time marked done twice (a Redo) counts once
				seen[k] = true
				*taps = append(*taps, nod.DoneReminder{Task: nod.Task{ID: id}, At: at})
			}
		}
		return nil
	}}
}

// doneTodaySQL reads the taps oldest first; doneLatestSQL newest first,
// and bounded: the chat's ⏰ and ✓ Done on every reminder, of which
// DoneTimes keeps one task's.
const (
	doneTodaySQL  = doneTapsSQL + ` ORDER BY created_at`
	doneLatestSQL = doneTapsSQL + ` ORDER BY created_at DESC LIMIT 500`
)

// stillDone reports whether t's time at is done still: the task is open
// with its reminder moved on past it (an undone ✓ Done put it back).
func stillDone(t nod.Task, at time.Time) bool {
	return t.DeletedAt == nil && t.Status != nod.StatusDone && t.Status != nod.StatusRejected && t.RemindAt != nil && t.RemindAt.After(at)
}

// DoneTimes returns the times of task's repeating reminder, from since
// on, that the person marked done with ✓ Done and did not undo, oldest
// first: a repeating task stays open, and its status alone does not say
// what was done. Each ✓ Done moved the reminder past its time, and its
// Undo moved it back: the times done are those before the reminder now.
func (db *Tasks) DoneTimes(ctx context.Context, chatID nod.ChatID, t nod.Task, since time.Time) ([]time.Time, error) {
	if t.Repeat == "" {
		return nil, nil
	}
	to := db.now().AddDate(1, 0, 0) // the series ended: every time marked done counts
	if t.RemindAt != nil {
		to = *t.RemindAt
	}
	var taps []nod.DoneReminder
	if err := db.readOne(ctx, tapsRead(doneLatestSQL, chatID, since, to, []nod.TaskID{t.ID}, &taps)); err != nil {
		return nil, fmt.Errorf("done times of task %s: %w", t.ID, err)
	}
	out := make([]time.Time, len(taps))
	for i, d := range taps {
		out[i] = d.At
	}
	slices.SortFunc(out, time.Time.Compare)
	return out, nil
}
