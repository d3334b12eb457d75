package storage

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"

	"github.com/nodbot/nod"
)

// Export reads what scope s holds in one read-only transaction and calls
// write with it while the transaction lasts: the export's sequences read
// from it as they are walked, so they must not be used after write
// returns. It writes nothing; write's error is returned as it is. An
// export of one person (s.Own) needs their id: nod.ErrInvalid without.
func (db *Exports) Export(ctx context.Context, s nod.ExportScope, write func(nod.Export) error) error {
	if s.Own && s.UserID == 0 {
		return fmt.Errorf("export of nobody's own: %w", nod.ErrInvalid)
	}
	return db.inRead(ctx, func(q conn) error {
		e := nod.Export{Scope: s}
		var err error
		if e.Settings, err = readSettings(ctx, q, s.ChatID, s.UserID); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		var dailyBy nod.UserID
		if err := q.QueryRowContext(ctx, `SELECT daily_by FROM chat_settings WHERE chat_id = $1`, s.ChatID).Scan(&dailyBy); err != nil && !noRows(err) {
			return fmt.Errorf("export daily review: %w", err)
		}
		if s.Own {
			// The group's language and a daily review someone else set
			// are the group's, not the person's.
			e.Settings.Language, e.Settings.LanguageSeen = "", ""
			if dailyBy != s.UserID {
				e.Settings.Daily, e.Settings.DailyQuiet = "", false
			}
		}
		rules, args := `WHERE chat_id = $1 AND status = 'active' AND expires_at > $2`, []any{s.ChatID, micros(db.now())}
		if s.Own {
			rules, args = rules+` AND user_id = $3`, append(args, s.UserID)
		}
		if e.Rules, err = queryRules(ctx, q, rules+` ORDER BY seq`, args...); err != nil {
			return fmt.Errorf("export rules: %w", err)
		}
		if e.Counts, err = exportCounts(ctx, q, s); err != nil {
			return err
		}
		e.Tasks, e.Reminders, e.Audit = exportTasks(ctx, q, s), exportReminders(ctx, q, s), exportAudit(ctx, q, s)
		return write(e)
	})
}

// exportFilter is the condition on column that keeps scope s's rows (the
// person's own, in a group), and the statement's arguments: the chat as
// $1, and the person as $2 when they filter.
func exportFilter(s nod.ExportScope, column string) (string, []any) {
	if !s.Own {
		return "", []any{s.ChatID}
	}
	return " AND " + column + " = $2", []any{s.ChatID, s.UserID}
}

// exportCounts counts the tasks, reminders and audit rows of scope s.
func exportCounts(ctx context.Context, q conn, s nod.ExportScope) (nod.ExportCounts, error) {
	tasks, args := exportFilter(s, "created_by")
	reminders, _ := exportFilter(s, "remind_by")
	audit, _ := exportFilter(s, "user_id")
	var c nod.ExportCounts
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM tasks WHERE chat_id = $1`+tasks+`),
		(SELECT COUNT(*) FROM tasks WHERE chat_id = $1 AND remind_at IS NOT NULL`+reminders+`),
		(SELECT COUNT(*) FROM audit_log WHERE chat_id = $1`+audit+`)`, args...).Scan(&c.Tasks, &c.Reminders, &c.Audit)
	if err != nil {
		return c, fmt.Errorf("export counts: %w", err)
	}
	return c, nil
}

// exportTasks reads scope s's tasks, trashed ones too, oldest first, each
// with its checklist: one statement, its rows read as they are walked
// (a task's checklist items are its consecutive rows).
func exportTasks(ctx context.Context, q conn, s nod.ExportScope) iter.Seq2[nod.Task, error] {
	return func(yield func(nod.Task, error) bool) {
		where, args := exportFilter(s, "t.created_by")
		cols := strings.ReplaceAll("t."+taskColumns, ", ", ", t.")
		rows, err := q.QueryContext(ctx, `SELECT `+cols+`, c.id, c.title, c.checked, c.checked_by, c.checked_at
			FROM tasks t LEFT JOIN checklist_items c ON c.task_id = t.id
			WHERE t.chat_id = $1`+where+` ORDER BY t.seq, c.position`, args...)
		if err != nil {
			yield(nod.Task{}, fmt.Errorf("export tasks: %w", err))
			return
		}
		defer rows.Close()
		var (
			cur  nod.Task
			have bool
		)
		for rows.Next() {
			var (
				id, title, by sql.NullString
				checked, at   sql.NullInt64
			)
			t, err := scanTask(rows, nil, &id, &title, &checked, &by, &at)
			if err != nil {
				yield(nod.Task{}, fmt.Errorf("export tasks: %w", err))
				return
			}
			if have && t.ID != cur.ID {
				if !yield(cur, nil) {
					return
				}
				have = false
			}
			if !have {
				cur, have = t, true
			}
			if id.Valid {
				cur.Checklist = append(cur.Checklist, nod.ChecklistItem{ID: nod.ItemID(id.String), Title: title.String, Checked: checked.Int64 != 0,
					CheckedBy: nod.Actor(by.String).Normalize(), CheckedAt: timePtr(at)})
			}
		}
		if err := rows.Err(); err != nil {
			yield(nod.Task{}, fmt.Errorf("export tasks: %w", err))
			return
		}
		if have {
			yield(cur, nil)
		}
	}
}

// exportReminders reads the tasks of the chat that have a reminder (in a
// group, one the person set), as they fall due; without checklists.
func exportReminders(ctx context.Context, q conn, s nod.ExportScope) iter.Seq2[nod.Task, error] {
	return func(yield func(nod.Task, error) bool) {
		where, args := exportFilter(s, "remind_by")
		rows, err := q.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks
			WHERE chat_id = $1 AND remind_at IS NOT NULL`+where+` ORDER BY remind_at, seq`, args...)
		if err != nil {
			yield(nod.Task{}, fmt.Errorf("export reminders: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanTask(rows, nil)
			if err != nil {
				yield(nod.Task{}, fmt.Errorf("export reminders: %w", err))
				return
			}
			if !yield(t, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nod.Task{}, fmt.Errorf("export reminders: %w", err))
		}
	}
}

// exportAudit reads scope s's audit rows, oldest first.
func exportAudit(ctx context.Context, q conn, s nod.ExportScope) iter.Seq2[nod.AuditEntry, error] {
	return func(yield func(nod.AuditEntry, error) bool) {
		where, args := exportFilter(s, "user_id")
		rows, err := q.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE chat_id = $1`+where+` ORDER BY id`, args...)
		if err != nil {
			yield(nod.AuditEntry{}, fmt.Errorf("export audit: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			a, err := scanAuditEntry(rows)
			if err != nil {
				yield(nod.AuditEntry{}, fmt.Errorf("export audit: %w", err))
				return
			}
			if !yield(a, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nod.AuditEntry{}, fmt.Errorf("export audit: %w", err))
		}
	}
}

// RecordExport appends an export's audit row (tool "export"): executed
// once its files were sent, failed with why when not.
func (db *Exports) RecordExport(ctx context.Context, a nod.AuditEntry) error {
	a.Tool = nod.ToolExport
	return db.inTx(ctx, func(tx conn) error {
		if a.At.IsZero() {
			a.At = db.now()
		}
		return db.insertAudit(ctx, tx, a)
	})
}
