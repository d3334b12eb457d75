package storage

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"modernc.org/sqlite"
)

// SQLite's lower() folds ASCII only: nod_fold is Go's strings.ToLower, so
// that a query matches on SQLite exactly as nod.TaskFilter.Match does.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("nod_fold", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return strings.ToLower(string(v)), nil
		}
		return args[0], nil
	})
}

// foldSQL is the SQL function that folds case as nod does: nod_fold on
// SQLite, lower() on PostgreSQL.
func foldSQL(postgres bool) string {
	if postgres {
		return "lower"
	}
	return "nod_fold"
}

// A cursor is a task's seq in base 36: short for a model to copy, and
// ordered by length first, then as a string (nod.CompareCursors).
func cursor(seq int64) string { return strconv.FormatInt(seq, 36) }

func parseCursor(s string) (int64, error) {
	seq, err := strconv.ParseInt(strings.TrimSpace(s), 36, 64)
	if err != nil || seq <= 0 {
		return 0, fmt.Errorf("cursor %q is not one a listing gave: %w", s, nod.ErrInvalid)
	}
	return seq, nil
}

// TaskPage returns a page of the chat's tasks outside the trash that f
// matches, oldest first, and how many f matches in all. A page read
// before a cursor that has nothing before it any more is the first page.
// Every read is an index range of the page's length, but a text query
// or a label has the database look through the chat's tasks (no index
// serves a substring or a label inside the JSON list). A malformed cursor is nod.ErrInvalid.
func (db *Tasks) TaskPage(ctx context.Context, chatID nod.ChatID, f nod.TaskFilter, p nod.PageRequest) (nod.TaskPage, error) {
	limit := min(max(p.Limit, 1), nod.MaxPage)
	conds, args := []string{"chat_id = $1", "deleted_at IS NULL"}, []any{chatID}
	counts := []string{"chat_id = $1"}
	if f.Status != "" {
		args = append(args, string(f.Status))
		conds = append(conds, fmt.Sprintf("status = $%d", len(args)))
		counts = append(counts, fmt.Sprintf("status = $%d", len(args)))
	}
	total := `(SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM task_counts WHERE ` + strings.Join(counts, " AND ") + `)`
	if q := strings.ToLower(strings.TrimSpace(f.Query)); q != "" {
		args = append(args, q, q)
		match := fmt.Sprintf("(instr(nod_fold(title), $%d) > 0 OR instr(nod_fold(description), $%d) > 0)", len(args)-1, len(args))
		if db.postgres {
			match = fmt.Sprintf("(strpos(lower(title), $%d) > 0 OR strpos(lower(description), $%d) > 0)", len(args)-1, len(args))
		}
		conds = append(conds, match)
		total = `(SELECT COUNT(*) FROM tasks WHERE ` + strings.Join(conds, " AND ") + `)`
	}
	if l := nod.FoldLabel(f.Label); l != "" {
		args = append(args, l)
		conds = append(conds, db.labelCond(len(args)))
		total = `(SELECT COUNT(*) FROM tasks WHERE ` + strings.Join(conds, " AND ") + `)`
	}
	order, before := "seq", p.Before != ""
	switch {
	case before:
		seq, err := parseCursor(p.Before)
		if err != nil {
			return nod.TaskPage{}, err
		}
		args = append(args, seq)
		conds, order = append(slices.Clip(conds), fmt.Sprintf("seq < $%d", len(args))), "seq DESC"
	case p.After != "":
		seq, err := parseCursor(p.After)
		if err != nil {
			return nod.TaskPage{}, err
		}
		args = append(args, seq)
		conds = append(slices.Clip(conds), fmt.Sprintf("seq > $%d", len(args)))
	}
	q := db.reader()
	rows, err := q.QueryContext(ctx, `SELECT seq, `+taskColumns+`, `+total+` FROM tasks WHERE `+strings.Join(conds, " AND ")+
		` ORDER BY `+order+limitSQL(limit+1), args...)
	if err != nil {
		return nod.TaskPage{}, fmt.Errorf("list tasks: %w", err)
	}
	var page nod.TaskPage
	seqs, err := scanPage(rows, &page, &page.Total)
	if err != nil {
		return nod.TaskPage{}, fmt.Errorf("list tasks: %w", err)
	}
	seqs, startOver := settlePage(&page, seqs, limit, p)
	if startOver {
		return db.TaskPage(ctx, chatID, f, nod.PageRequest{Limit: p.Limit})
	}
	if len(page.Tasks) == 0 {
		// No row carried the total.
		if err := q.QueryRowContext(ctx, `SELECT `+total, args[:len(args)-boolInt(p.After != "")]...).Scan(&page.Total); err != nil {
			return nod.TaskPage{}, fmt.Errorf("count tasks: %w", err)
		}
	}
	for _, s := range seqs {
		page.Cursors = append(page.Cursors, cursor(s))
	}
	if err := loadChecklists(ctx, q, page.Tasks); err != nil {
		return nod.TaskPage{}, fmt.Errorf("list tasks: %w", err)
	}
	return page, nil
}

// settlePage trims a page read one row past limit to limit, puts a page
// read backwards in order, and says which ways there is more. startOver
// reports a backward page that found nothing (its cursor ran off the
// start): the caller reads the first page instead.
func settlePage(page *nod.TaskPage, seqs []int64, limit int, p nod.PageRequest) (_ []int64, startOver bool) {
	more := len(page.Tasks) > limit
	if more {
		page.Tasks, seqs = page.Tasks[:limit], seqs[:limit]
	}
	if p.Before == "" {
		page.Earlier, page.Later = p.After != "", more
		return seqs, false
	}
	if len(page.Tasks) == 0 {
		return seqs, true
	}
	slices.Reverse(page.Tasks)
	slices.Reverse(seqs)
	page.Earlier, page.Later = more, true
	return seqs, false
}

// scanPage reads rows of seq and taskColumns (and a total, if total is
// not nil) into page and returns the tasks' seqs.
func scanPage(rows *sql.Rows, page *nod.TaskPage, total *int) ([]int64, error) {
	defer rows.Close()
	var tail []any
	if total != nil {
		tail = append(tail, total)
	}
	var seqs []int64
	for rows.Next() {
		var seq int64
		t, err := scanTask(rows, &seq, tail...)
		if err != nil {
			return nil, err
		}
		page.Tasks, seqs = append(page.Tasks, t), append(seqs, seq)
	}
	return seqs, rows.Err()
}

// focusSoonDays is how far ahead a due date counts as soon.
const focusSoonDays = 7

// focusLimit bounds the candidates of each kind the system prompt's
// tasks are picked from, and the tasks picked.
const focusLimit = 50

// focusKinds are the candidates of each kind the system prompt's tasks
// are picked from, up to focusLimit each, each an index range: open
// tasks overdue, the latest due first; open tasks due within
// focusSoonDays, the soonest first; tasks in progress, the newest first;
// the tasks changed most recently. Every live task is a candidate of the
// last kind, so none means no task. Each row is its kind (b), the task's
// seq, and what it is ordered by within its kind (d, u).
var focusKinds = func() []string {
	open := `chat_id = $1 AND deleted_at IS NULL AND due_date IS NOT NULL AND status NOT IN ('DONE', 'REJECTED')`
	parts := []string{
		`SELECT 0 AS b, seq, due_date AS d, CAST(0 AS BIGINT) AS u FROM tasks WHERE ` + open + ` AND due_date < $2 ORDER BY due_date DESC`,
		`SELECT 1 AS b, seq, due_date AS d, CAST(0 AS BIGINT) AS u FROM tasks WHERE ` + open + ` AND due_date >= $2 AND due_date <= $3 ORDER BY due_date`,
		`SELECT 2 AS b, seq, '' AS d, seq AS u FROM tasks WHERE chat_id = $1 AND deleted_at IS NULL AND status = 'IN_PROGRESS' ORDER BY seq DESC`,
		`SELECT 3 AS b, seq, '' AS d, updated_at AS u FROM tasks WHERE chat_id = $1 AND deleted_at IS NULL ORDER BY updated_at DESC`,
	}
	for i, p := range parts {
		parts[i] = fmt.Sprintf(`SELECT b, seq, d, u FROM (%s%s) AS k%d`, p, limitSQL(focusLimit), i)
	}
	return parts
}()

// focusSQL picks the system prompt's tasks in one statement: each task
// under its first kind (focusKinds), then the first $4 of them in that
// order, with the chat's count of tasks.
var focusSQL = func() string {
	cols := strings.ReplaceAll("t."+taskColumns, ", ", ", t.")
	return `SELECT f.seq, ` + cols + `, (SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM task_counts WHERE chat_id = $1)
		FROM (SELECT b, seq, d, u, ROW_NUMBER() OVER (PARTITION BY seq ORDER BY b) AS nth FROM (` + strings.Join(focusKinds, " UNION ALL ") + `) AS c) AS f
		JOIN tasks t ON t.seq = f.seq
		WHERE f.nth = 1
		ORDER BY f.b, CASE WHEN f.b = 0 THEN f.d END DESC, CASE WHEN f.b = 1 THEN f.d END, CASE WHEN f.b >= 2 THEN f.u END DESC, f.seq DESC`
}()

// focusCandidatesSQL reads focusKinds' candidates and, as a row of kind
// 4 whose seq is it, the chat's count of tasks: on SQLite the tasks are
// picked from them here (pickFocus) and then read by seq, since its
// window and sorts over even a hundred candidates cost it more than both
// statements (BenchmarkFocusTasks).
var focusCandidatesSQL = strings.Join(focusKinds, " UNION ALL ") +
	` UNION ALL SELECT 4, (SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM task_counts WHERE chat_id = $1), '', 0`

// candidate is a row of focusCandidatesSQL.
type candidate struct {
	kind int
	seq  int64
	d    string
	u    int64
}

// pickFocus picks the seqs of up to limit tasks from cands as focusSQL
// does: each task under its first kind, in kind order, then each kind's
// own (d descending, d ascending, u descending twice), then newest seq.
func pickFocus(cands []candidate, limit int) []int64 {
	first := make(map[int64]candidate, len(cands))
	for _, c := range cands {
		if f, ok := first[c.seq]; !ok || c.kind < f.kind {
			first[c.seq] = c
		}
	}
	picked := slices.SortedFunc(maps.Values(first), func(a, b candidate) int {
		if a.kind != b.kind {
			return cmp.Compare(a.kind, b.kind)
		}
		var by int
		switch a.kind {
		case 0:
			by = strings.Compare(b.d, a.d)
		case 1:
			by = strings.Compare(a.d, b.d)
		default:
			by = cmp.Compare(b.u, a.u)
		}
		return cmp.Or(by, cmp.Compare(b.seq, a.seq))
	})
	seqs := make([]int64, 0, min(limit, len(picked)))
	for _, c := range picked[:min(limit, len(picked))] {
		seqs = append(seqs, c.seq)
	}
	return seqs
}

// focusPage reads FocusTasks' page on SQLite, checklists aside, into
// page: the candidates, then the tasks picked from them.
func (db *core) focusPage(ctx context.Context, chatID nod.ChatID, today string, limit int, page *nod.TaskPage) error {
	limit = min(max(limit, 1), focusLimit)
	var (
		cands []candidate
		p     nod.TaskPage
	)
	err := db.readOne(ctx, read{query: focusCandidatesSQL, args: []any{chatID, today, focusSoon(today)}, scan: func(rows scanner) error {
		for rows.Next() {
			var c candidate
			if err := rows.Scan(&c.kind, &c.seq, &c.d, &c.u); err != nil {
				return err
			}
			if c.kind == 4 {
				p.Total = int(c.seq)
				continue
			}
			cands = append(cands, c)
		}
		return nil
	}})
	if err != nil {
		return err
	}
	seqs := pickFocus(cands, limit)
	p.Later = p.Total > len(seqs)
	if len(seqs) == 0 {
		*page = p
		return nil
	}
	args := append(make([]any, 0, len(seqs)+1), chatID)
	at := make(map[int64]int, len(seqs))
	for i, seq := range seqs {
		args, at[seq] = append(args, seq), i
	}
	// The two reads are not one snapshot: a task trashed between them is
	// left out, as the candidates read after it would have left it.
	tasks := make([]*nod.Task, len(seqs))
	err = db.readOne(ctx, read{query: `SELECT seq, ` + taskColumns + ` FROM tasks WHERE chat_id = $1 AND deleted_at IS NULL AND seq IN (` + params(2, len(seqs)) + `)`, args: args, scan: func(rows scanner) error {
		for rows.Next() {
			var seq int64
			t, err := scanTask(rows, &seq)
			if err != nil {
				return err
			}
			tasks[at[seq]] = &t
		}
		return nil
	}})
	if err != nil {
		return err
	}
	for i, t := range tasks {
		if t != nil {
			p.Tasks, p.Cursors = append(p.Tasks, *t), append(p.Cursors, cursor(seqs[i]))
		}
	}
	*page = p
	return nil
}

// focusSoon is the last day, after today (YYYY-MM-DD), a due date counts
// as soon on.
func focusSoon(today string) string {
	if t, err := time.Parse(nod.DateLayout, today); err == nil {
		return t.AddDate(0, 0, focusSoonDays).Format(nod.DateLayout)
	}
	return today
}

// FocusTasks returns up to limit (at most 50) of the chat's tasks outside
// the trash that matter most on day today (YYYY-MM-DD), in that order:
// open tasks overdue, then due within a week, tasks in progress, then the
// most recently changed; and how many tasks the chat has in all. It reads
// at most 200 index entries and limit tasks, however many the chat has.
func (db *Tasks) FocusTasks(ctx context.Context, chatID nod.ChatID, today string, limit int) (nod.TaskPage, error) {
	var page nod.TaskPage
	read := func() error { return db.readOne(ctx, focusRead(chatID, today, limit, &page)) }
	if !db.postgres {
		read = func() error { return db.focusPage(ctx, chatID, today, limit, &page) }
	}
	if err := read(); err != nil {
		return nod.TaskPage{}, fmt.Errorf("focus tasks: %w", err)
	}
	if err := loadChecklists(ctx, db.reader(), page.Tasks); err != nil {
		return nod.TaskPage{}, fmt.Errorf("focus tasks: %w", err)
	}
	return page, nil
}

// focusRead reads FocusTasks' page, checklists aside, into page, in one
// statement (focusSQL): PostgreSQL's, whose turn sends it in its pipeline.
func focusRead(chatID nod.ChatID, today string, limit int, page *nod.TaskPage) read {
	limit = min(max(limit, 1), focusLimit)
	soon := focusSoon(today)
	// The limit is written in (limitSQL): bound, it made SQLite prepare
	// the statement again on every call, a millisecond each.
	return read{query: focusSQL + limitSQL(limit), args: []any{chatID, today, soon}, scan: func(rows scanner) error {
		var p nod.TaskPage
		for rows.Next() {
			var seq int64
			t, err := scanTask(rows, &seq, &p.Total)
			if err != nil {
				return err
			}
			p.Tasks, p.Cursors = append(p.Tasks, t), append(p.Cursors, cursor(seq))
		}
		p.Later = p.Total > len(p.Tasks)
		*page = p
		return nil
	}}
}

// focusChecklistsRead reads the checklists of the tasks r, a focusRead,
// reads into page, which must be scanned first: the same query picks
// the tasks again, so the two need no round trip between them.
func focusChecklistsRead(r read, page *nod.TaskPage) read {
	return read{query: checklistsSQL + `(SELECT id FROM (` + r.query + `) AS f) ORDER BY task_id, position`, args: r.args,
		scan: func(rows scanner) error { return scanChecklists(rows, page.Tasks) }}
}

// TaskTitles returns the titles of those of ids that name tasks of the
// chat, in the trash or not, in one read.
func (db *Tasks) TaskTitles(ctx context.Context, chatID nod.ChatID, ids []nod.TaskID) (map[nod.TaskID]string, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	out := make(map[nod.TaskID]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{chatID}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := db.reader().QueryContext(ctx, `SELECT id, title FROM tasks WHERE chat_id = $1 AND id IN (`+params(2, len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("task titles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id nod.TaskID
		var title string
		if err := rows.Scan(&id, &title); err != nil {
			return nil, fmt.Errorf("task titles: %w", err)
		}
		out[id] = title
	}
	return out, rows.Err()
}

// ImportTasks stores tasks as they are, in one transaction, a few hundred
// rows a statement: no audit rows, no undo entries. It is for seeding (the
// tests and the bench load chats of thousands of tasks); a task without a
// creation time is created now.
func (db *Tasks) ImportTasks(ctx context.Context, tasks []nod.Task) error {
	now := db.now()
	rows := make([][]any, 0, len(tasks))
	var items [][]any
	for _, t := range tasks {
		if err := t.Validate(); err != nil {
			return fmt.Errorf("import task %q: %w", t.Title, err)
		}
		if t.CreatedAt.IsZero() {
			t.CreatedAt = now
		}
		if t.UpdatedAt.IsZero() {
			t.UpdatedAt = t.CreatedAt
		}
		t.CreatedAt, t.UpdatedAt = nod.Stamp(t.CreatedAt), nod.Stamp(t.UpdatedAt)
		row, err := taskRow(t)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		for i, it := range t.Checklist {
			items = append(items, append([]any{it.ID, t.ID, i}, itemValues(&it)...))
		}
	}
	return db.inTx(ctx, func(tx conn) error {
		if err := insertRows(ctx, tx, `INSERT INTO tasks (`+insertColumns+`) VALUES `, rows); err != nil {
			return fmt.Errorf("import tasks: %w", err)
		}
		if err := insertRows(ctx, tx, `INSERT INTO checklist_items (id, task_id, position, title, checked, checked_by, checked_at) VALUES `, items); err != nil {
			return fmt.Errorf("import checklist items: %w", err)
		}
		return nil
	})
}

// insertRows inserts rows of equal width with prefix, many a statement.
func insertRows(ctx context.Context, q conn, prefix string, rows [][]any) error {
	const perStatement = 400
	for len(rows) > 0 {
		batch := rows[:min(len(rows), perStatement)]
		rows = rows[len(batch):]
		var b strings.Builder
		b.WriteString(prefix)
		var args []any
		for i, r := range batch {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			for j, v := range r {
				if j > 0 {
					b.WriteByte(',')
				}
				args = append(args, v)
				fmt.Fprintf(&b, "$%d", len(args))
			}
			b.WriteByte(')')
		}
		if _, err := q.text().ExecContext(ctx, b.String(), args...); err != nil {
			return err
		}
		q.db.counts.stmts.Add(1)
	}
	return nil
}
