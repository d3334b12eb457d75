package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/repeat"
)

// SetTimeZone sets the chat's time zone (empty: back to the default def)
// for userID, with its audit row under tool, and moves a daily review
// that is on to its next local time, in one transaction. The reminders
// of the tasks in keep stay where they are: the words that set the zone
// also set them, read in it already. It returns the change, recorded so
// that it can be undone.
func (db *Schedule) SetTimeZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string, def *time.Location, tool nod.Tool, keep []nod.TaskID) (nod.ZoneChange, error) {
	return db.SetTimeZoneUntil(ctx, chatID, userID, zone, def, tool, keep, nod.Stay{})
}

// SetTimeZoneUntil is SetTimeZone for a while: at stay.Until (unless
// zero) the sweep puts the chat back to the zone it had, or to
// stay.Back, unless another zone change comes first (ClaimDue).
func (db *Schedule) SetTimeZoneUntil(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string, def *time.Location, tool nod.Tool, keep []nod.TaskID, stay nod.Stay) (nod.ZoneChange, error) {
	zc := nod.ZoneChange{ID: nod.NewID(), ChatID: chatID, UserID: userID, Stay: stay}
	err := db.inTx(ctx, func(tx conn) error {
		// Before the zone is read: a zone set at once elsewhere moves the
		// reminders from the zone it leaves, which this one must read.
		if err := db.lockChat(ctx, tx, chatID); err != nil {
			return err
		}
		kept, err := remindersNow(ctx, tx, chatID, keep)
		if err != nil {
			return err
		}
		set, err := db.setZone(ctx, tx, chatID, userID, zone, def, tool, nod.OutcomeExecuted, keepLocal(kept))
		if err != nil {
			return err
		}
		zc.Before, zc.After, zc.Moved = set.before, set.after, set.reminders()
		if set.endedAt.Valid && set.before == set.after {
			if zc.Crossed, err = crossedEnd(ctx, tx, chatID, fromMicros(set.endedAt.Int64), stay.Until); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO zone_changes (id, chat_id, user_id, before_tz, after_tz, created_at, moved, back_at, back_due, back_tz, ended_stay) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$8,$9,$10)`,
			zc.ID, chatID, userID, zc.Before, zc.After, micros(db.now()), set.record(), nullMicros(orNil(stay.Until)), nullString(stay.Back), set.ended)
		if err != nil {
			return fmt.Errorf("record time zone change: %w", err)
		}
		return nil
	})
	return zc, err
}

// crossedEnd reads the chat's upcoming reminders in its own clock that a
// stay's end moved from was to until (zero: no end) put on its other
// side, by when they are due: each went off at home and now goes off in
// the stay, or the other way round.
func crossedEnd(ctx context.Context, tx conn, chatID nod.ChatID, was, until time.Time) ([]nod.MovedReminder, error) {
	lo, hi := micros(was), int64(math.MaxInt64)
	if !until.IsZero() {
		lo, hi = min(lo, micros(until)), max(lo, micros(until))
	}
	var out []nod.MovedReminder
	err := tx.queryRows(ctx, `SELECT id, title, remind_due FROM tasks WHERE chat_id = $1 AND remind_due >= $2 AND remind_due < $3
		AND remind_clock IS NULL AND deleted_at IS NULL AND status NOT IN ('DONE', 'REJECTED') ORDER BY remind_due, id`, []any{chatID, lo, hi},
		func(rows scanner) error {
			for rows.Next() {
				var (
					m  nod.MovedReminder
					at int64
				)
				if err := rows.Scan(&m.TaskID, &m.Title, &at); err != nil {
					return err
				}
				m.At = fromMicros(at)
				out = append(out, m)
			}
			return rows.Err()
		})
	if err != nil {
		return nil, fmt.Errorf("reminders across the stay's end: %w", err)
	}
	return out, nil
}

// orNil is t, or nil for the zero time: a moment not set.
func orNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// UndoZone puts back the zone the chat had before change id, once, for
// the person who made it, and the reminders the change moved, each where
// it was if it is still where the change left it: the others stay as
// they are. Errors wrap nod.ErrNotFound, nod.ErrForbidden
// (another person's change), nod.ErrDecided (undone already) or
// nod.ErrStale (the zone changed since).
func (db *Schedule) UndoZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string, def *time.Location) (nod.ZoneChange, error) {
	zc := nod.ZoneChange{ID: id, ChatID: chatID}
	err := db.inTx(ctx, func(tx conn) error {
		if err := db.lockChat(ctx, tx, chatID); err != nil { // as SetTimeZone
			return err
		}
		var (
			undone        sql.NullInt64
			status, moved string
			ended         sql.NullString
		)
		err := tx.QueryRowContext(ctx, `SELECT user_id, before_tz, after_tz, undone_at, status, moved, ended_stay FROM zone_changes WHERE id = $1 AND chat_id = $2`, id, chatID).
			Scan(&zc.UserID, &zc.Before, &zc.After, &undone, &status, &moved, &ended)
		switch {
		case noRows(err):
			return fmt.Errorf("time zone change %s: %w", id, nod.ErrNotFound)
		case err != nil:
			return fmt.Errorf("undo time zone: %w", err)
		case zc.UserID != userID:
			return fmt.Errorf("time zone change %s: %w", id, nod.ErrForbidden)
		case undone.Valid || status != "applied":
			return fmt.Errorf("time zone change %s is undone already, or was never made: %w", id, nod.ErrDecided)
		}
		var now string
		if err := tx.QueryRowContext(ctx, `SELECT tz FROM chat_settings WHERE chat_id = $1`, chatID).Scan(&now); err != nil {
			return fmt.Errorf("undo time zone: %w", err)
		}
		if now != zc.After {
			return fmt.Errorf("time zone is %q, not %q: %w", now, zc.After, nod.ErrStale)
		}
		shift := keepLocal(nil) // a change recorded before its moves were
		if moved != "" {
			shift = putBack(moved)
		}
		set, err := db.setZone(ctx, tx, chatID, userID, zc.Before, def, nod.ToolSetTimezone, nod.OutcomeUndone, shift)
		if err != nil {
			return err
		}
		zc.Moved = set.reminders()
		if ended.Valid {
			if zc.Stay, err = resumeStay(ctx, tx, chatID, ended.String, db.now()); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE zone_changes SET undone_at = $1 WHERE id = $2`, micros(db.now()), id)
		return err
	})
	return zc, err
}

// resumeStay sets again the stay of change id, which an undone change
// had ended, if its end is still ahead: the chat is again in the stay
// it was in, with its end and where it goes then. A zero Stay when it
// is not.
func resumeStay(ctx context.Context, tx conn, chatID nod.ChatID, id string, now time.Time) (nod.Stay, error) {
	var (
		at   int64
		back string
	)
	err := tx.QueryRowContext(ctx, `UPDATE zone_changes SET back_due = back_at WHERE id = $1 AND chat_id = $2 AND back_at > $3 AND undone_at IS NULL
		RETURNING back_at, COALESCE(back_tz, before_tz)`, id, chatID, micros(now)).Scan(&at, &back)
	switch {
	case noRows(err):
		return nod.Stay{}, nil
	case err != nil:
		return nod.Stay{}, fmt.Errorf("resume the stay: %w", err)
	}
	return nod.Stay{Until: fromMicros(at), Back: back}, nil
}

// ProposeZone records a zone change the agent inferred, to wait for the
// person's tap (DecideZone), with its audit row as queued.
func (db *Schedule) ProposeZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string, stay nod.Stay) (nod.ZoneChange, error) {
	l, err := nod.LoadZone(zone)
	if err != nil {
		return nod.ZoneChange{}, err
	}
	zc := nod.ZoneChange{ID: nod.NewID(), ChatID: chatID, UserID: userID, After: l.String(), Stay: stay}
	now := db.now()
	err = db.inTx(ctx, func(tx conn) error {
		err := tx.QueryRowContext(ctx, `SELECT tz FROM chat_settings WHERE chat_id = $1`, chatID).Scan(&zc.Before)
		if err != nil && !noRows(err) {
			return fmt.Errorf("propose time zone: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO zone_changes (id, chat_id, user_id, before_tz, after_tz, created_at, status, back_at, back_tz) VALUES ($1,$2,$3,$4,$5,$6,'proposed',$7,$8)`,
			zc.ID, chatID, userID, zc.Before, zc.After, micros(now), nullMicros(orNil(stay.Until)), nullString(stay.Back))
		if err != nil {
			return fmt.Errorf("propose time zone: %w", err)
		}
		args, _ := json.Marshal(map[string]string{"timezone": zc.After})
		return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: nod.ToolSetTimezone, Args: args, Outcome: nod.OutcomeQueued, At: now})
	})
	return zc, err
}

// AskZones records a proposed zone change for each place a name given
// to /tz may mean (/tz Frankfurt), in one transaction, to wait for the
// person's tap on one of them (DecideZone) as a proposal of the agent's
// does. It audits nothing: nothing changes until they choose.
func (db *Schedule) AskZones(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zones []string) ([]nod.ZoneChange, error) {
	out := make([]nod.ZoneChange, len(zones))
	for i, z := range zones {
		l, err := nod.LoadZone(z)
		if err != nil {
			return nil, err
		}
		out[i] = nod.ZoneChange{ID: nod.NewID(), ChatID: chatID, UserID: userID, After: l.String()}
	}
	now := micros(db.now())
	err := db.inTx(ctx, func(tx conn) error {
		var before string
		err := tx.QueryRowContext(ctx, `SELECT tz FROM chat_settings WHERE chat_id = $1`, chatID).Scan(&before)
		if err != nil && !noRows(err) {
			return fmt.Errorf("ask time zone: %w", err)
		}
		for i := range out {
			out[i].Before = before
			_, err = tx.ExecContext(ctx, `INSERT INTO zone_changes (id, chat_id, user_id, before_tz, after_tz, created_at, status) VALUES ($1,$2,$3,$4,$5,$6,'proposed')`,
				out[i].ID, chatID, userID, before, out[i].After, now)
			if err != nil {
				return fmt.Errorf("ask time zone: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DecideZone applies (accept) or declines a proposed zone change, once,
// for the person it was proposed to (anyone of the chat for a proposal of
// nod's own review, userID 0 when proposed). Errors wrap nod.ErrNotFound,
// nod.ErrForbidden, nod.ErrDecided or nod.ErrExpired (a proposal lives
// as long as a change set); then nothing changed.
func (db *Schedule) DecideZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string, accept bool, def *time.Location) (nod.ZoneChange, error) {
	zc := nod.ZoneChange{ID: id, ChatID: chatID}
	err := db.inTx(ctx, func(tx conn) error {
		if err := db.lockChat(ctx, tx, chatID); err != nil { // as SetTimeZone
			return err
		}
		var (
			status string
			owner  nod.UserID
			at     int64
			kept   string
			back   sql.NullInt64
		)
		err := tx.QueryRowContext(ctx, `SELECT user_id, after_tz, status, created_at, kept, back_at, COALESCE(back_tz, '') FROM zone_changes WHERE id = $1 AND chat_id = $2`, id, chatID).
			Scan(&owner, &zc.After, &status, &at, &kept, &back, &zc.Back)
		switch {
		case noRows(err):
			return fmt.Errorf("time zone proposal %s: %w", id, nod.ErrNotFound)
		case err != nil:
			return fmt.Errorf("decide time zone: %w", err)
		case owner != 0 && owner != userID:
			return fmt.Errorf("time zone proposal %s: %w", id, nod.ErrForbidden)
		case status != "proposed":
			return fmt.Errorf("time zone proposal %s is %s: %w", id, status, nod.ErrDecided)
		case !db.now().Before(fromMicros(at).Add(db.opts.ChangeSetTTL)):
			return fmt.Errorf("time zone proposal %s: %w", id, nod.ErrExpired) // as long as a change set
		}
		zc.UserID = userID
		if !accept {
			if _, err := tx.ExecContext(ctx, `UPDATE zone_changes SET status = 'rejected' WHERE id = $1`, id); err != nil {
				return fmt.Errorf("decline time zone: %w", err)
			}
			args, _ := json.Marshal(map[string]string{"timezone": zc.After})
			return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: nod.ToolSetTimezone, Args: args, Outcome: nod.OutcomeRejected, UserConfirmed: true, At: db.now()})
		}
		set, err := db.setZone(ctx, tx, chatID, userID, zc.After, def, nod.ToolSetTimezone, nod.OutcomeConfirmed, keepLocal(keptReminders(kept)))
		if err != nil {
			return err
		}
		zc.Before, zc.Moved = set.before, set.reminders()
		if back.Valid {
			zc.Until = fromMicros(back.Int64)
		}
		// The person who tapped may undo it; before is the zone as it was
		// when they did, and the zone it goes back to, if it was set for a
		// while.
		_, err = tx.ExecContext(ctx, `UPDATE zone_changes SET status = 'applied', user_id = $1, before_tz = $2, created_at = $3, moved = $4, back_due = back_at, ended_stay = $5 WHERE id = $6`,
			userID, zc.Before, micros(db.now()), set.record(), set.ended, id)
		return err
	})
	return zc, err
}

// AskedZone records that the agent of chatID was told to ask where the
// person is; it reports whether this was the first time.
func (db *Schedule) AskedZone(ctx context.Context, chatID nod.ChatID) (bool, error) {
	var first bool
	err := db.inTx(ctx, func(tx conn) error {
		now := micros(db.now())
		res, err := tx.ExecContext(ctx, `INSERT INTO chat_settings (chat_id, zone_asked, updated_at) VALUES ($1, $2, $3)
			ON CONFLICT (chat_id) DO UPDATE SET zone_asked = excluded.zone_asked, updated_at = excluded.updated_at
			WHERE chat_settings.zone_asked IS NULL`, chatID, now, now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		first = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("zone asked: %w", err)
	}
	return first, nil
}

// setZone writes the chat's zone and moves its daily review with it, and
// its reminders as shift does, audited under tool as outcome; it returns
// the zone before and after and the reminders moved.
func (db *Schedule) setZone(ctx context.Context, tx conn, chatID nod.ChatID, userID nod.UserID, zone string, def *time.Location, tool nod.Tool, outcome nod.Outcome, shift shifter) (zoneSet, error) {
	loc := def
	if zone != "" {
		l, err := nod.LoadZone(zone)
		if err != nil {
			return zoneSet{}, err
		}
		loc, zone = l, l.String()
	}
	now := db.now()
	// Any zone change ends a stay set for a while: the chat is where this
	// one puts it.
	var (
		ended   sql.NullString
		endedAt sql.NullInt64
	)
	err := tx.QueryRowContext(ctx, `UPDATE zone_changes SET back_due = NULL WHERE back_due IS NOT NULL AND chat_id = $1 RETURNING id, back_at`, chatID).Scan(&ended, &endedAt)
	if err != nil && !noRows(err) {
		return zoneSet{}, fmt.Errorf("set time zone: %w", err)
	}
	var prev, daily string
	err = tx.QueryRowContext(ctx, `SELECT tz, daily_at FROM chat_settings WHERE chat_id = $1`, chatID).Scan(&prev, &daily)
	if err != nil && !noRows(err) {
		return zoneSet{}, fmt.Errorf("set time zone: %w", err)
	}
	var due sql.NullInt64
	if h, m, err := nod.ParseClock(daily); err == nil && daily != "" {
		due = sql.NullInt64{Int64: micros(nod.NextDaily(h, m, loc, now)), Valid: true}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO chat_settings (chat_id, tz, daily_due, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (chat_id) DO UPDATE SET tz = excluded.tz, daily_due = excluded.daily_due, updated_at = excluded.updated_at`,
		chatID, zone, due, micros(now))
	if err != nil {
		return zoneSet{}, fmt.Errorf("set time zone: %w", err)
	}
	prevLoc := def
	if prev != "" {
		if l, err := nod.LoadZone(prev); err == nil {
			prevLoc = l
		}
	}
	var moved []move
	if prevLoc.String() != loc.String() {
		if moved, err = shift(ctx, tx, chatID, prevLoc, loc, now); err != nil {
			return zoneSet{}, err
		}
	}
	args, _ := json.Marshal(map[string]any{"timezone": zone, "before": prev, "reminders": len(moved)})
	err = db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: tool, Args: args, Outcome: outcome, UserConfirmed: true, At: now})
	return zoneSet{before: prev, after: zone, moved: moved, ended: ended, endedAt: endedAt}, err
}

// KeepLocal records, on a zone change that waits for the person's tap,
// the reminders that its turn read in that zone, by task, at the moments
// they may be at: the one their calls set, and the one a call that waits
// for a tap leaves until then. Accepting the zone leaves each reminder
// there while it still is (keepLocalTimes), whether its own call was
// applied at once, was tapped since or waits.
func (db *Schedule) KeepLocal(ctx context.Context, chatID nod.ChatID, id string, kept map[nod.TaskID][]time.Time) error {
	if len(kept) == 0 {
		return nil
	}
	at := make(map[nod.TaskID][]int64, len(kept))
	for task, ts := range kept {
		for _, t := range ts {
			at[task] = append(at[task], micros(t))
		}
	}
	b, err := json.Marshal(at)
	if err != nil {
		return fmt.Errorf("keep reminders local: %w", err)
	}
	_, err = db.exec(ctx, `UPDATE zone_changes SET kept = $1 WHERE id = $2 AND chat_id = $3 AND status = 'proposed'`, string(b), id, chatID)
	if err != nil {
		return fmt.Errorf("keep reminders local: %w", err)
	}
	return nil
}

// remindersNow reads the moments the reminders of tasks are set to, by
// task; a task without one, or gone, has none.
func remindersNow(ctx context.Context, tx conn, chatID nod.ChatID, tasks []nod.TaskID) (map[nod.TaskID][]int64, error) {
	kept := map[nod.TaskID][]int64{}
	for _, task := range tasks {
		var at sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT remind_at FROM tasks WHERE id = $1 AND chat_id = $2`, task, chatID).Scan(&at)
		if err != nil && !noRows(err) {
			return nil, fmt.Errorf("keep reminder local: %w", err)
		}
		if at.Valid {
			kept[task] = []int64{at.Int64}
		}
	}
	return kept, nil
}

// keptReminders reads a zone change's kept reminders; none if unreadable.
// A record from before a task could hold more than one moment holds one.
func keptReminders(kept string) map[nod.TaskID][]int64 {
	var out map[nod.TaskID][]int64
	if kept == "" || json.Unmarshal([]byte(kept), &out) == nil {
		return out
	}
	var one map[nod.TaskID]int64
	_ = json.Unmarshal([]byte(kept), &one) // written by KeepLocal; unreadable keeps none
	out = make(map[nod.TaskID][]int64, len(one))
	for task, at := range one {
		out[task] = []int64{at}
	}
	return out
}

// zoneSet is what setting a chat's zone did: the zone before and after,
// and the upcoming reminders it moved.
type zoneSet struct {
	before, after string
	moved         []move
	ended         sql.NullString // the stay the change ended, if one was set: its Undo sets it again
	endedAt       sql.NullInt64  // when that stay was to end
}

// move is a reminder a zone change moved: its task, and the moment it
// was at and is at now; next says it is the next time of a repeating
// reminder whose last time went out (remind_due, remind_at being that).
type move struct {
	id       nod.TaskID
	title    string
	from, at int64
	next     bool
}

// exec moves a reminder as m says, if it is still at m.from; putting
// one back swaps its times.
func (m move) exec(ctx context.Context, tx conn, chatID nod.ChatID, now time.Time) (bool, error) {
	query := `UPDATE tasks SET remind_at = $1, remind_due = $1, updated_at = $2 WHERE id = $3 AND chat_id = $4 AND remind_at = $5 AND remind_due = $5 AND deleted_at IS NULL`
	if m.next {
		query = `UPDATE tasks SET remind_due = $1, updated_at = $2 WHERE id = $3 AND chat_id = $4 AND remind_due = $5 AND remind_at <> $5 AND deleted_at IS NULL`
	}
	res, err := tx.ExecContext(ctx, query, m.at, micros(now), m.id, chatID, m.from)
	if err != nil {
		return false, fmt.Errorf("move reminder: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// reminders are the moved reminders as the change reports them.
func (s zoneSet) reminders() []nod.MovedReminder {
	var out []nod.MovedReminder
	for _, m := range s.moved {
		out = append(out, nod.MovedReminder{TaskID: m.id, Title: m.title, At: fromMicros(m.at)})
	}
	return out
}

// record is the moves as a zone change keeps them for its undo, by task
// ("{}" for none, where an empty record is a change from before they
// were kept).
func (s zoneSet) record() string {
	r := make(map[nod.TaskID]movedRecord, len(s.moved))
	for _, m := range s.moved {
		r[m.id] = movedRecord{m.from, m.at, m.next}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// movedRecord is a move as a zone change keeps it.
type movedRecord struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
	Next bool  `json:"next,omitempty"`
}

// shifter moves the chat's reminders for a zone change from one zone to
// another, and returns those it moved.
type shifter func(ctx context.Context, tx conn, chatID nod.ChatID, from, to *time.Location, now time.Time) ([]move, error)

// keepLocal is keepLocalTimes, kept the reminders of kept.
func keepLocal(kept map[nod.TaskID][]int64) shifter {
	return func(ctx context.Context, tx conn, chatID nod.ChatID, from, to *time.Location, now time.Time) ([]move, error) {
		return keepLocalTimes(ctx, tx, chatID, from, to, now, kept, false)
	}
}

// putBack undoes the moves of record (zoneSet.record): each reminder
// goes back to the moment it was at, if it is still where the change
// left it and waits for it; one moved, sent or cleared since stays. A
// repeating reminder that is not where the change left it (✓ Done took
// it to its next time since, read in the zone being undone) keeps its
// clock time, as in any zone change: its rule's times are the chat's.
func putBack(record string) shifter {
	return func(ctx context.Context, tx conn, chatID nod.ChatID, from, to *time.Location, now time.Time) ([]move, error) {
		var r map[nod.TaskID]movedRecord
		if err := json.Unmarshal([]byte(record), &r); err != nil {
			return nil, fmt.Errorf("time zone change's moves: %w", err)
		}
		var out []move
		for _, id := range slices.Sorted(maps.Keys(r)) {
			m := move{id: id, from: r[id].To, at: r[id].From, next: r[id].Next}
			ok, err := m.exec(ctx, tx, chatID, now)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if err := tx.QueryRowContext(ctx, `SELECT title FROM tasks WHERE id = $1`, id).Scan(&m.title); err != nil {
				return nil, fmt.Errorf("put reminder back: %w", err)
			}
			out = append(out, m)
		}
		back := make(map[nod.TaskID][]int64, len(out))
		for _, m := range out {
			back[m.id] = []int64{m.at}
		}
		rules, err := keepLocalTimes(ctx, tx, chatID, from, to, now, back, true)
		if err != nil {
			return nil, err
		}
		out = append(out, rules...)
		slices.SortStableFunc(out, func(a, b move) int { return cmp.Compare(a.at, b.at) })
		return out, nil
	}
}

// keepLocalTimes moves the chat's upcoming reminders from their clock
// time in from to the same clock time in to: "remind me at 8" means 8
// where the person is, as the daily review does. Only a reminder waiting
// for its own moment moves (one an undo sent at once stays due now), and
// the next time of a repeating one whose last time went out ("8am
// wherever I am" when nobody tapped ✓ Done); one moved into the past
// fires late rather than never. A reminder kept
// (by task, at a moment it may be at) was read in to already and
// stays, as does one given in another place's clock (remind_clock): "9
// Berlin time" means 9 in Berlin wherever the chat is. It returns those
// it moved, in the order they go off (the same clock times keep their
// order). With repeating, only repeating reminders move.
func keepLocalTimes(ctx context.Context, tx conn, chatID nod.ChatID, from, to *time.Location, now time.Time, kept map[nod.TaskID][]int64, repeating bool) ([]move, error) {
	only := ""
	if repeating {
		only = " AND repeat <> ''"
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, title, remind_due, remind_due <> remind_at FROM tasks WHERE chat_id = $1
		AND (remind_due = remind_at OR remind_due > remind_at AND repeat <> '') AND remind_clock IS NULL AND deleted_at IS NULL`+only+` ORDER BY remind_due, id`, chatID)
	if err != nil {
		return nil, fmt.Errorf("reminders to keep local: %w", err)
	}
	var moves []move
	for rows.Next() {
		var (
			m  move
			at int64
		)
		if err := rows.Scan(&m.id, &m.title, &at, &m.next); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reminders to keep local: %w", err)
		}
		if slices.Contains(kept[m.id], at) {
			continue
		}
		l := fromMicros(at).In(from)
		m.from, m.at = at, micros(time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, to))
		moves = append(moves, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reminders to keep local: %w", err)
	}
	// Each as it was read: one that went out, or was moved, since is not
	// this zone's to move.
	var moved []move
	for _, m := range moves {
		ok, err := m.exec(ctx, tx, chatID, now)
		if err != nil {
			return nil, err
		}
		if ok {
			moved = append(moved, m)
		}
	}
	return moved, nil
}

// SetDaily turns the chat's daily review on at the local time hh:mm
// (empty: off), quiet or not, with its audit row; it is next due at that
// time in the chat's zone (def when it set none), and goes to topic at,
// where it was set.
func (db *Schedule) SetDaily(ctx context.Context, at nod.Topic, userID nod.UserID, hhmm string, quiet bool, def *time.Location) error {
	chatID, now := at.ChatID, db.now()
	return db.inTx(ctx, func(tx conn) error {
		var zone string
		err := tx.QueryRowContext(ctx, `SELECT tz FROM chat_settings WHERE chat_id = $1`, chatID).Scan(&zone)
		if err != nil && !noRows(err) {
			return fmt.Errorf("set daily review: %w", err)
		}
		var due sql.NullInt64
		if hhmm != "" {
			h, m, err := nod.ParseClock(hhmm)
			if err != nil {
				return err
			}
			hhmm = fmt.Sprintf("%02d:%02d", h, m)
			due = sql.NullInt64{Int64: micros(nod.NextDaily(h, m, nod.ChatSettings{TimeZone: zone}.Zone(def), now)), Valid: true}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO chat_settings (chat_id, daily_at, daily_quiet, daily_due, daily_thread, daily_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (chat_id) DO UPDATE SET daily_at = excluded.daily_at, daily_quiet = excluded.daily_quiet, daily_due = excluded.daily_due,
			daily_thread = excluded.daily_thread, daily_by = excluded.daily_by, updated_at = excluded.updated_at`,
			chatID, hhmm, boolInt(quiet), due, at.Thread, userID, micros(now))
		if err != nil {
			return fmt.Errorf("set daily review: %w", err)
		}
		args, _ := json.Marshal(map[string]any{"daily": hhmm, "quiet": quiet})
		return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: nod.ToolDaily, Args: args, Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: now})
	})
}

// ClaimDue claims up to limit reminders and up to limit daily reviews
// that are due at now, and records each as a message owed to its chat,
// in one transaction: on PostgreSQL the rows are locked with SKIP LOCKED,
// so replicas claiming at once each take others; SQLite has one writer.
// A claimed reminder never fires again (its remind_due is cleared); a
// reminder of a task in the trash, done or rejected is cleared without
// firing. A claimed daily review moves to its next local time after now,
// so that days missed while nod was down are caught up once. Returns the
// owed messages, owned by this process, for it to deliver now.
func (db *Schedule) ClaimDue(ctx context.Context, now time.Time, def *time.Location, limit int) ([]nod.Owed, error) {
	lock := ""
	if db.postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var out []nod.Owed
	err := db.inTx(ctx, func(tx conn) error {
		reminders, err := claimReminders(ctx, tx, now, def, limit, lock)
		if err != nil {
			return err
		}
		dailies, err := claimDailies(ctx, tx, now, def, limit, lock)
		if err != nil {
			return err
		}
		backs, err := db.claimZoneReturns(ctx, tx, now, def, limit, lock)
		if err != nil {
			return err
		}
		if len(backs) > 0 {
			// The reminders a stay's end held back (claimReminders) go
			// off in the clock it put back, after its message.
			after, err := claimReminders(ctx, tx, now, def, limit, lock)
			if err != nil {
				return err
			}
			leaveOutFired(backs, after)
			dueInStay(reminders, backs, def)
			backs = append(backs, after...)
		}
		out = append(append(reminders, backs...), dailies...)
		for i := range out {
			if out[i].Kind == nod.OwedReminder {
				out[i].Ref = reminderRef(nod.TaskID(out[i].Ref), out[i].Due)
			}
			out[i].ID = nod.NewID()
			if err := db.owe(ctx, tx, out[i], now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// claimReminders clears the reminders due at now and returns those that
// fire: the others' tasks are in the trash, done or rejected. Ref is the
// task's id. A repeating reminder fires its latest occurrence due, once
// however many passed while nod was down, and is due next at its first
// occurrence after now. A chat whose stay ended while nod was down keeps
// its reminders due since, and its repeating ones, until the return is
// claimed: they are in the clock the return puts back ("remind me
// Monday at 10", said in Berlin till Sunday, is 10 at home).
func claimReminders(ctx context.Context, tx conn, now time.Time, def *time.Location, limit int, lock string) ([]nod.Owed, error) {
	rows, err := tx.QueryContext(ctx, `UPDATE tasks SET remind_due = NULL WHERE id IN (
			SELECT id FROM tasks WHERE remind_due IS NOT NULL AND remind_due <= $1 AND NOT EXISTS (
				SELECT 1 FROM zone_changes z WHERE z.back_due IS NOT NULL AND z.back_due <= $1 AND z.chat_id = tasks.chat_id
					AND (z.back_due <= tasks.remind_due OR tasks.repeat <> ''))
			ORDER BY remind_due`+limitSQL(limit)+lock+`)
			RETURNING id, chat_id, remind_thread, remind_by, remind_at, status, deleted_at, repeat`, micros(now))
	if err != nil {
		return nil, fmt.Errorf("claim reminders: %w", err)
	}
	var (
		out     []nod.Owed
		repeats = map[nod.TaskID]string{}
	)
	for rows.Next() {
		var (
			o       nod.Owed
			at      sql.NullInt64
			status  string
			deleted sql.NullInt64
			rule    string
		)
		if err := rows.Scan(&o.Ref, &o.ChatID, &o.Thread, &o.User, &at, &status, &deleted, &rule); err != nil {
			rows.Close()
			return nil, fmt.Errorf("claim reminders: %w", err)
		}
		if !at.Valid || deleted.Valid || status == string(nod.StatusDone) || status == string(nod.StatusRejected) {
			continue
		}
		o.Kind, o.Due, o.At = nod.OwedReminder, fromMicros(at.Int64), now
		if rule != "" {
			repeats[nod.TaskID(o.Ref)] = rule
		}
		out = append(out, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim reminders: %w", err)
	}
	for i := range out {
		if rule, ok := repeats[nod.TaskID(out[i].Ref)]; ok {
			if err := claimRepeat(ctx, tx, &out[i], rule, now, def); err != nil {
				return nil, err
			}
		}
	}
	// In the order they say they were due: RETURNING keeps none.
	slices.SortFunc(out, func(a, b nod.Owed) int { return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Ref, b.Ref)) })
	return out, nil
}

// claimRepeat moves the repeating reminder o claimed on: to the latest
// occurrence at or before now if that is later than its time (nod was
// down, or no one tapped ✓ Done), which is what fires, and due next at
// the rule's first occurrence after now. An occurrence is in the rule's
// clock: a place's at the offset it has then, or the chat's; a time
// moved once into another clock keeps that clock only while it is the
// reminder's time.
func claimRepeat(ctx context.Context, tx conn, o *nod.Owed, stored string, now time.Time, def *time.Location) error {
	rule, err := repeat.Read(stored)
	if err != nil {
		return nil // a rule that does not read fires once, as a plain reminder
	}
	// The chat's zone, and whether the reminder's own time went out (it
	// is in the outbox), in one statement.
	var (
		zone string
		sent bool
	)
	err = tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT tz FROM chat_settings WHERE chat_id = $1), ''),
		EXISTS (SELECT 1 FROM outbox WHERE chat_id = $1 AND kind = 'reminder' AND ref = $2)`, o.ChatID, reminderRef(nod.TaskID(o.Ref), o.Due)).Scan(&zone, &sent)
	if err != nil {
		return fmt.Errorf("claim reminder of task %s: %w", o.Ref, err)
	}
	loc := nod.ChatSettings{TimeZone: zone}.Zone(def)
	var due sql.NullInt64
	if next, ok := rule.Next(loc, now); ok {
		due = sql.NullInt64{Int64: micros(next), Valid: true}
	}
	if latest, ok := rule.Latest(loc, now); ok && latest.After(o.Due) {
		missedTimes(o, rule, loc, sent, nod.Stamp(latest))
		o.Due = nod.Stamp(latest)
		var (
			clock sql.NullInt64
			place sql.NullString
		)
		if off, ok := rule.Offset(o.Due); ok {
			clock, place = sql.NullInt64{Int64: int64(off), Valid: true}, sql.NullString{String: rule.Zone, Valid: true}
		}
		_, err = tx.ExecContext(ctx, `UPDATE tasks SET remind_at = $1, remind_due = $2, remind_clock = $3, remind_zone = $4 WHERE id = $5`,
			micros(o.Due), due, clock, place, o.Ref)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE tasks SET remind_at = $1, remind_due = $2 WHERE id = $3`, micros(o.Due), due, o.Ref)
	}
	if err != nil {
		return fmt.Errorf("claim reminder of task %s: %w", o.Ref, err)
	}
	return nil
}

// claimZoneReturns puts back the zones set for a while whose time has
// come ("in Berlin till Sunday"), each as a zone change of its own by the
// person who set it, which its message can undo; a return a later zone
// change overtook is no longer due.
func (db *Schedule) claimZoneReturns(ctx context.Context, tx conn, now time.Time, def *time.Location, limit int, lock string) ([]nod.Owed, error) {
	rows, err := tx.QueryContext(ctx, `UPDATE zone_changes SET back_due = NULL WHERE id IN (
			SELECT id FROM zone_changes WHERE back_due IS NOT NULL AND back_due <= $1 ORDER BY back_due`+limitSQL(limit)+lock+`)
			RETURNING chat_id, user_id, COALESCE(back_tz, before_tz), after_tz`, micros(now))
	if err != nil {
		return nil, fmt.Errorf("claim zone returns: %w", err)
	}
	var due []nod.ZoneChange
	for rows.Next() {
		var zc nod.ZoneChange
		if err := rows.Scan(&zc.ChatID, &zc.UserID, &zc.After, &zc.Before); err != nil {
			rows.Close()
			return nil, fmt.Errorf("claim zone returns: %w", err)
		}
		due = append(due, zc) // the way back: from the stay's zone to the one before, or the one named
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim zone returns: %w", err)
	}
	var out []nod.Owed
	for _, back := range due {
		if err := db.lockChat(ctx, tx, back.ChatID); err != nil {
			return nil, err
		}
		set, err := db.setZone(ctx, tx, back.ChatID, back.UserID, back.After, def, nod.ToolSetTimezone, nod.OutcomeExecuted, keepLocal(nil))
		if err != nil {
			return nil, err
		}
		zc := nod.ZoneChange{ID: nod.NewID(), ChatID: back.ChatID, UserID: back.UserID, Before: set.before, After: set.after, Moved: set.reminders()}
		_, err = tx.ExecContext(ctx, `INSERT INTO zone_changes (id, chat_id, user_id, before_tz, after_tz, created_at, moved) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
			zc.ID, zc.ChatID, zc.UserID, zc.Before, zc.After, micros(now), set.record())
		if err != nil {
			return nil, fmt.Errorf("record time zone return: %w", err)
		}
		out = append(out, nod.Owed{Topic: nod.Topic{ChatID: zc.ChatID}, Kind: nod.OwedZoneBack, Ref: zc.ID, Zone: &zc, User: zc.UserID, At: now})
	}
	return out, nil
}

// leaveOutFired takes the reminders that fire now, after the returns
// that moved them, out of the returns' messages: each says when it was
// set for in its own.
func leaveOutFired(backs, fired []nod.Owed) {
	ids := make(map[nod.TaskID]bool, len(fired))
	for _, o := range fired {
		ids[nod.TaskID(o.Ref)] = true
	}
	for _, b := range backs {
		b.Zone.Moved = slices.DeleteFunc(b.Zone.Moved, func(m nod.MovedReminder) bool { return ids[m.TaskID] })
	}
}

// dueInStay gives each reminder claimed before the returns, in a chat
// one of them takes home, the stay's zone it fell due in.
func dueInStay(reminders, backs []nod.Owed, def *time.Location) {
	stay := make(map[nod.ChatID]string, len(backs))
	for _, b := range backs {
		stay[b.ChatID] = cmp.Or(b.Zone.Before, def.String())
	}
	for i := range reminders {
		if zone, ok := stay[reminders[i].ChatID]; ok {
			reminders[i].DueZone = zone
		}
	}
}

// missedTimes counts, into o, the times of rule before latest that went
// by without a reminder: from o.Due, the reminder's time, unless that
// one went out (sent; then from the rule's next time after it).
func missedTimes(o *nod.Owed, rule repeat.Rule, loc *time.Location, sent bool, latest time.Time) {
	from := o.Due
	if sent {
		if from, _ = rule.Next(loc, o.Due); !from.Before(latest) {
			return
		}
	}
	if o.Missed = rule.Within(loc, from, latest, maxMissed); o.Missed > 0 {
		o.MissedFrom = from
		if first, ok := rule.Next(loc, from.Add(-time.Nanosecond)); ok {
			o.MissedFrom = first // the first time counted, should from be off the rule's
		}
	}
}

// maxMissed bounds the count of missed times: a daily rule a year down
// says "365", not a count that takes long to make.
const maxMissed = 1000

// dueDaily is a chat's daily review due, as chat_settings holds it.
type dueDaily struct {
	chat     nod.ChatID
	thread   nod.ThreadID
	by       nod.UserID
	at, zone string
	due      int64
}

// claimDailies claims the daily reviews due at now and returns those
// that run: one a chat's local day.
func claimDailies(ctx context.Context, tx conn, now time.Time, def *time.Location, limit int, lock string) ([]nod.Owed, error) {
	rows, err := tx.QueryContext(ctx, `SELECT chat_id, daily_thread, daily_by, daily_at, tz, daily_due FROM chat_settings
			WHERE daily_due IS NOT NULL AND daily_due <= $1 ORDER BY daily_due`+limitSQL(limit)+lock, micros(now))
	if err != nil {
		return nil, fmt.Errorf("claim daily reviews: %w", err)
	}
	var ds []dueDaily
	for rows.Next() {
		var d dueDaily
		if err := rows.Scan(&d.chat, &d.thread, &d.by, &d.at, &d.zone, &d.due); err != nil {
			rows.Close()
			return nil, fmt.Errorf("claim daily reviews: %w", err)
		}
		ds = append(ds, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim daily reviews: %w", err)
	}
	var out []nod.Owed
	for _, d := range ds {
		o, ok, err := claimDaily(ctx, tx, d, now, def)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// claimDaily moves d to its next local time after now, and reports
// whether this claimer took it and its day had no review yet.
func claimDaily(ctx context.Context, tx conn, d dueDaily, now time.Time, def *time.Location) (nod.Owed, bool, error) {
	var next sql.NullInt64
	loc := nod.ChatSettings{TimeZone: d.zone}.Zone(def)
	if h, m, err := nod.ParseClock(d.at); err == nil {
		next = sql.NullInt64{Int64: micros(nod.NextDaily(h, m, loc, now)), Valid: true}
	}
	// The condition on daily_due makes a second claimer (SQLite has no
	// row locks to skip) find nothing to do.
	res, err := tx.ExecContext(ctx, `UPDATE chat_settings SET daily_due = $1 WHERE chat_id = $2 AND daily_due = $3`, next, d.chat, d.due)
	if err != nil {
		return nod.Owed{}, false, fmt.Errorf("claim daily review: %w", err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return nod.Owed{}, false, nil
	}
	// A review time moved later on a day that had its review already
	// does not bring a second one.
	day := nod.LocalDate(now, loc)
	var ran int
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE chat_id = $1 AND kind = 'daily' AND ref = $2`, d.chat, day).Scan(&ran)
	if err != nil {
		return nod.Owed{}, false, fmt.Errorf("claim daily review: %w", err)
	}
	if ran > 0 {
		return nod.Owed{}, false, nil
	}
	return nod.Owed{Topic: nod.Topic{ChatID: d.chat, Thread: d.thread}, Kind: nod.OwedDaily, Ref: day, Due: fromMicros(d.due), At: now, User: d.by}, true, nil
}
