package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// People keeps what nod knows of one person across chats: what /forget
// would delete, the /forget that waits for its phrase, and forgetting
// (docs/design.md §6.1 lists every table and what it keeps).
type People struct{ *core }

// People returns the people repository.
func (db *DB) People() *People { return &db.people }

// AskForget records the person's /forget, waiting until r.ExpiresAt for
// its phrase in their private chat r.ChatID; a /forget asked again
// replaces the one before.
func (db *People) AskForget(ctx context.Context, r nod.ForgetRequest) error {
	_, err := db.exec(ctx, `INSERT INTO forget_requests (user_id, chat_id, message_id, created_at, expires_at) VALUES ($1, $2, 0, $3, $4)
		ON CONFLICT (user_id) DO UPDATE SET chat_id = excluded.chat_id, message_id = 0, created_at = excluded.created_at, expires_at = excluded.expires_at`,
		r.UserID, r.ChatID, micros(db.now()), micros(r.ExpiresAt))
	if err != nil {
		return fmt.Errorf("ask forget: %w", err)
	}
	return nil
}

// SetForgetMessage records the prompt that asks for userID's phrase.
func (db *Messages) SetForgetMessage(ctx context.Context, userID nod.UserID, msgID int) error {
	if _, err := db.exec(ctx, `UPDATE forget_requests SET message_id = $1 WHERE user_id = $2`, msgID, userID); err != nil {
		return fmt.Errorf("remember forget prompt: %w", err)
	}
	return nil
}

const forgetColumns = `user_id, chat_id, message_id, expires_at`

func scanForget(row interface{ Scan(...any) error }) (nod.ForgetRequest, error) {
	var (
		r  nod.ForgetRequest
		at int64
	)
	err := row.Scan(&r.UserID, &r.ChatID, &r.MessageID, &at)
	r.ExpiresAt = fromMicros(at)
	return r, err
}

// ForgetRequest returns userID's waiting /forget, expired or not (the
// caller compares ExpiresAt with its clock); false if none waits.
func (db *People) ForgetRequest(ctx context.Context, userID nod.UserID) (nod.ForgetRequest, bool, error) {
	r, err := scanForget(db.reader().QueryRowContext(ctx, `SELECT `+forgetColumns+` FROM forget_requests WHERE user_id = $1`, userID))
	if noRows(err) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("forget request: %w", err)
	}
	return r, true, nil
}

// EndForget ends userID's waiting /forget, cancelled or expired, and
// returns it. Exactly one caller ends it: the others get false.
func (db *People) EndForget(ctx context.Context, userID nod.UserID) (nod.ForgetRequest, bool, error) {
	var (
		r     nod.ForgetRequest
		ended bool
	)
	err := db.inTx(ctx, func(tx conn) error {
		var err error
		r, err = scanForget(tx.QueryRowContext(ctx, `DELETE FROM forget_requests WHERE user_id = $1 RETURNING `+forgetColumns, userID))
		if noRows(err) {
			ended = false
			return nil
		}
		ended = err == nil
		return err
	})
	if err != nil {
		return r, false, fmt.Errorf("end forget: %w", err)
	}
	return r, ended, nil
}

// ExpireForgets ends the /forget requests whose time is up at now, each
// once across replicas, and returns them.
func (db *People) ExpireForgets(ctx context.Context, now time.Time) ([]nod.ForgetRequest, error) {
	var out []nod.ForgetRequest
	err := db.inTx(ctx, func(tx conn) error {
		out = nil
		rows, err := tx.QueryContext(ctx, `DELETE FROM forget_requests WHERE expires_at <= $1 RETURNING `+forgetColumns, micros(now))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanForget(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("expire forget requests: %w", err)
	}
	return out, nil
}

// PersonData counts what nod keeps about userID, whose private chat is
// chatID: what Forget would delete.
func (db *People) PersonData(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PersonData, error) {
	f, err := db.traces(ctx, db.reader(), chatID, userID)
	if err != nil {
		return nod.PersonData{}, fmt.Errorf("person data: %w", err)
	}
	return f.data, nil
}

// Forget deletes, in one transaction, everything nod keeps about
// userID, whose private chat is chatID, and ends their /forget, which
// must still wait: the private chat's every record, and in groups their
// lines of the conversation, their name, modes, rules, proposals,
// decisions, undo entries, deletions, readings, zone changes and the
// messages owed them; the reminders they set on the groups' tasks are
// cleared, and a group's daily review they turned on is turned off. The
// groups' tasks stay. Their audit rows are redacted (content gone, links
// kept), and each chat's chain gets a forget row that records them.
// Errors wrap nod.ErrNotFound when no /forget waits (another delivery of
// the phrase ended it, or its time ran out); then nothing was written.
func (db *People) Forget(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PersonData, error) {
	now := db.now()
	var (
		out   nod.PersonData
		chats []nod.ChatID
	)
	err := db.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM forget_requests WHERE user_id = $1 AND chat_id = $2 AND expires_at > $3`, userID, chatID, micros(now))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("forget %d: no request waits: %w", userID, nod.ErrNotFound)
		}
		f, err := db.traces(ctx, tx, chatID, userID)
		if err != nil {
			return err
		}
		// Every chat's lock, in one order whoever forgets: an audit chain
		// is appended to under it.
		chats = slices.Sorted(slices.Values(append([]nod.ChatID{chatID}, f.groups...)))
		for _, c := range chats {
			if err := db.lockChat(ctx, tx, c); err != nil {
				return err
			}
		}
		if err := db.forgetChat(ctx, tx, chatID); err != nil {
			return err
		}
		// Every process drops the conversations it keeps decoded.
		if _, err := tx.ExecContext(ctx, `UPDATE history_gen SET gen = gen + 1`); err != nil {
			return fmt.Errorf("forget: %w", err)
		}
		for _, g := range f.groups {
			if err := db.forgetMember(ctx, tx, g, userID, f, now); err != nil {
				return fmt.Errorf("group %d: %w", g, err)
			}
		}
		out = f.data
		out.AuditRows = 0
		for _, c := range chats {
			n, err := db.redactAudit(ctx, tx, c, f.auditRows(c), now)
			if err != nil {
				return err
			}
			out.AuditRows += n
		}
		return nil
	})
	if err != nil {
		return nod.PersonData{}, fmt.Errorf("forget: %w", err)
	}
	// This process's readings of the person's settings go; another's stay
	// until its LRU turns them over, and are never used unchecked
	// (KeptSettings).
	for _, c := range chats {
		db.settings.Remove(settingsKey{c, userID})
	}
	return out, nil
}

// privateTables are the tables whose rows of the private chat all go.
// The chat's tasks go first: their checklists go with them (ON DELETE
// CASCADE), as a change set's items go with it.
var privateTables = []string{"tasks", "task_counts", "messages", "change_sets", "decisions", "undo_entries", "chat_settings",
	"pending_deletions", "rules", "outbox", "readings", "cards", "member_modes", "button_messages", "zone_changes", "chat_members", "external_calls"}

// forgetChat deletes every record of a private chat but its audit rows.
func (db *People) forgetChat(ctx context.Context, tx conn, chatID nod.ChatID) error {
	for _, t := range privateTables {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE chat_id = $1`, chatID); err != nil {
			return fmt.Errorf("forget the chat's %s: %w", t, err)
		}
	}
	if !db.postgres {
		// Last: the deletes above counted it on. The count starts again,
		// under the history's generation this forget moves (openings).
		if _, err := tx.ExecContext(ctx, `DELETE FROM chat_versions WHERE chat_id = $1`, chatID); err != nil {
			return fmt.Errorf("forget the chat's version: %w", err)
		}
	}
	return nil
}

// memberTables are the tables whose rows of a group that name the
// person go whole.
var memberTables = []string{"decisions", "rules", "readings", "member_modes", "zone_changes", "chat_members", "external_calls"}

// forgetMember deletes what group g keeps of the person.
func (db *People) forgetMember(ctx context.Context, tx conn, g nod.ChatID, userID nod.UserID, f *traces, now time.Time) error {
	for _, e := range f.lines[g] {
		var err error
		// A line rewritten loses its request encoding (wire), which holds
		// the words it had.
		switch {
		case e.drop:
			_, err = tx.ExecContext(ctx, `DELETE FROM messages WHERE chat_id = $1 AND thread = $2 AND seq = $3`, g, e.thread, e.seq)
		case e.note: // nod's note holds no Telegram message of theirs
			_, err = tx.ExecContext(ctx, `UPDATE messages SET body = $1, wire = NULL, msg_id = 0 WHERE chat_id = $2 AND thread = $3 AND seq = $4`, e.body, g, e.thread, e.seq)
		default:
			_, err = tx.ExecContext(ctx, `UPDATE messages SET body = $1, wire = NULL WHERE chat_id = $2 AND thread = $3 AND seq = $4`, e.body, g, e.thread, e.seq)
		}
		if err != nil {
			return fmt.Errorf("forget lines: %w", err)
		}
	}
	// What the outbox owes about their sets, undo entries and deletions
	// goes with them.
	owed := map[string][]string{}
	for _, r := range []struct{ table, kinds string }{{"change_sets", "set refresh"}, {"undo_entries", "receipt undone"}, {"pending_deletions", "deletion"}} {
		ids, err := queryIDs[string](ctx, tx, `SELECT id FROM `+r.table+` WHERE chat_id = $1 AND user_id = $2`, g, userID)
		if err != nil {
			return err
		}
		for _, k := range strings.Fields(r.kinds) {
			owed[k] = append(owed[k], ids...)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+r.table+` WHERE chat_id = $1 AND user_id = $2`, g, userID); err != nil {
			return fmt.Errorf("forget %s: %w", r.table, err)
		}
	}
	for _, t := range memberTables {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE chat_id = $1 AND user_id = $2`, g, userID); err != nil {
			return fmt.Errorf("forget %s: %w", t, err)
		}
	}
	if err := db.forgetOwed(ctx, tx, g, userID, owed, f.said); err != nil {
		return err
	}
	// The group's tasks are the group's: only the reminders the person
	// set go, and a daily review they turned on, which goes out only for
	// its person.
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET remind_at = NULL, remind_due = NULL, remind_thread = 0, remind_by = 0, updated_at = $1
		WHERE chat_id = $2 AND remind_by = $3`, micros(now), g, userID); err != nil {
		return fmt.Errorf("clear reminders: %w", err)
	}
	// The tasks they created stay too; who created them is forgotten.
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET created_by = 0 WHERE chat_id = $1 AND created_by = $2`, g, userID); err != nil {
		return fmt.Errorf("forget who created tasks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chat_settings SET daily_at = '', daily_quiet = 0, daily_due = NULL, daily_thread = 0, daily_by = 0, updated_at = $1
		WHERE chat_id = $2 AND daily_by = $3`, micros(now), g, userID); err != nil {
		return fmt.Errorf("turn the daily review off: %w", err)
	}
	return nil
}

// forgetOwed deletes group g's owed messages about the person: those
// whose records (refs by kind) went, the reminders and daily reviews
// owed for them, and the answers owed to their words (said).
func (db *People) forgetOwed(ctx context.Context, tx conn, g nod.ChatID, userID nod.UserID, refs map[string][]string, said map[string]bool) error {
	rows, err := tx.QueryContext(ctx, `SELECT seq, kind, ref, payload FROM outbox WHERE chat_id = $1`, g)
	if err != nil {
		return err
	}
	var gone []int64
	for rows.Next() {
		var (
			seq                int64
			kind, ref, payload string
		)
		if err := rows.Scan(&seq, &kind, &ref, &payload); err != nil {
			rows.Close()
			return err
		}
		var p struct {
			User nod.UserID `json:"user"`
			Text string     `json:"text"`
		}
		json.Unmarshal([]byte(payload), &p) // other kinds' payloads, or none
		switch nod.OwedKind(kind) {
		case nod.OwedReminder, nod.OwedDaily:
			if p.User == userID {
				gone = append(gone, seq)
			}
		case nod.OwedAnswer:
			if said[p.Text] {
				gone = append(gone, seq)
			}
		default:
			if slices.Contains(refs[kind], ref) {
				gone = append(gone, seq)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, seq := range gone {
		if _, err := tx.ExecContext(ctx, `DELETE FROM outbox WHERE seq = $1`, seq); err != nil {
			return fmt.Errorf("forget owed: %w", err)
		}
	}
	return nil
}

// redactAudit redacts the audit rows of chat c that cond picks and
// appends the forget row that records them; it returns how many it
// redacted. A row whose
// link or digest no longer held is redacted all the same, and recorded
// as changed: verify keeps reporting it.
func (db *People) redactAudit(ctx context.Context, tx conn, c nod.ChatID, cond auditCond, now time.Time) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+chainColumns+` FROM audit_log WHERE chat_id = $1 AND redacted = 0 AND tool <> $2 ORDER BY id`, c, nod.ToolForget)
	if err != nil {
		return 0, fmt.Errorf("redact audit: %w", err)
	}
	var (
		rec forgetRecord
		ids []int64
	)
	a := &Audit{db.core}
	for rows.Next() {
		r, err := scanAuditRow(rows)
		if err != nil {
			rows.Close()
			return 0, err
		}
		if !cond(r.entry) {
			continue
		}
		if strings.HasPrefix(r.hash, keyedPrefix) && len(db.opts.AuditKey) == 0 {
			rows.Close()
			return 0, fmt.Errorf("redact audit row %d: it is keyed, and checking it needs NOD_AUDIT_KEY: %w", r.entry.ID, nod.ErrInvalid)
		}
		it := redactedItem{ID: r.entry.ID, Changed: !a.intact(r)}
		r.entry.UserID, r.entry.Args, r.entry.Verdict, r.entry.Error, r.entry.Reason = 0, json.RawMessage("{}"), "", "", ""
		if !it.Changed {
			it.Seal = legacySeal(r)
		}
		rec.Redacted = append(rec.Redacted, it)
		ids = append(ids, r.entry.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, nil
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `UPDATE audit_log SET user_id = 0, args = '{}', verdict = '', error = '', reason = '', salt = '', redacted = 1 WHERE id = $1`, id); err != nil {
			return 0, fmt.Errorf("redact audit row %d: %w", id, err)
		}
	}
	rec.Rows = len(ids)
	args, err := json.Marshal(rec)
	if err != nil {
		return 0, err
	}
	return len(ids), db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: c, Tool: nod.ToolForget, Args: args, Outcome: nod.OutcomeExecuted, At: now})
}

// auditCond picks the audit rows of a chat that a forget redacts.
type auditCond func(nod.AuditEntry) bool

// traces is what nod keeps of a person, found before it is deleted.
type traces struct {
	user nod.UserID
	chat nod.ChatID // their private chat
	// groups are the other chats that keep something of theirs, in
	// order: groups, and another person's private chat where a line
	// names them.
	groups []nod.ChatID
	// lines are, per group, the conversation's lines that go or change.
	lines map[nod.ChatID][]lineEdit
	// said are the texts of their lines in groups: the answers owed to
	// them, and the record of a turn nod stopped before answering, name
	// them only so.
	said map[string]bool
	data nod.PersonData
}

// auditRows picks chat c's audit rows that go: in the private chat
// every one (but earlier forget rows, which hold no one's words), in a
// group the person's own, and the record of a turn cut short that
// holds their words.
func (f *traces) auditRows(c nod.ChatID) auditCond {
	if c == f.chat {
		return func(nod.AuditEntry) bool { return true }
	}
	return func(a nod.AuditEntry) bool {
		return a.UserID == f.user || a.UserID == 0 && a.Tool == nod.ToolInterrupted && f.said[a.Arg("text")]
	}
}

// traceChats finds the chats other than the private one that name the
// person: in a table's user column, in a conversation line of theirs, or
// in a line that names them (another's reply to them, a forward of their
// words, a turn's notes: "Alice (42)").
const traceChats = `SELECT chat_id FROM chat_members WHERE user_id = $2
	UNION SELECT chat_id FROM member_modes WHERE user_id = $2
	UNION SELECT chat_id FROM rules WHERE user_id = $2
	UNION SELECT chat_id FROM change_sets WHERE user_id = $2
	UNION SELECT chat_id FROM decisions WHERE user_id = $2
	UNION SELECT chat_id FROM undo_entries WHERE user_id = $2
	UNION SELECT chat_id FROM pending_deletions WHERE user_id = $2
	UNION SELECT chat_id FROM readings WHERE user_id = $2
	UNION SELECT chat_id FROM zone_changes WHERE user_id = $2
	UNION SELECT chat_id FROM audit_log WHERE user_id = $2
	UNION SELECT chat_id FROM tasks WHERE remind_by = $2 OR created_by = $2
	UNION SELECT chat_id FROM chat_settings WHERE daily_by = $2
	UNION SELECT chat_id FROM messages WHERE body LIKE $3 OR body LIKE $4 OR body LIKE $5`

// traces finds what q keeps of userID and counts it.
func (db *People) traces(ctx context.Context, q conn, chatID nod.ChatID, userID nod.UserID) (*traces, error) {
	f := &traces{user: userID, chat: chatID, lines: map[nod.ChatID][]lineEdit{}, said: map[string]bool{}}
	id := strconv.FormatInt(int64(userID), 10)
	rows, err := q.QueryContext(ctx, `SELECT chat_id FROM (`+traceChats+`) AS c WHERE chat_id <> $1 ORDER BY chat_id`,
		chatID, userID, `%"user_id":`+id+`,%`, `%"user_id":`+id+`}%`, `%(`+id+`)%`)
	if err != nil {
		return nil, fmt.Errorf("chats: %w", err)
	}
	for rows.Next() {
		var g nod.ChatID
		if err := rows.Scan(&g); err != nil {
			rows.Close()
			return nil, err
		}
		f.groups = append(f.groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	tag := personTag(userID)
	for _, g := range f.groups {
		edits, said, err := memberLines(ctx, q, g, userID, tag)
		if err != nil {
			return nil, err
		}
		f.lines[g] = edits
		for _, s := range said {
			f.said[s] = true
		}
		for _, e := range edits {
			if e.drop || e.note {
				f.data.Messages++
			}
		}
	}
	if err := db.count(ctx, q, f); err != nil {
		return nil, err
	}
	return f, nil
}

// count counts what f holds, but the lines counted already.
func (db *People) count(ctx context.Context, q conn, f *traces) error {
	// Other people's private chats where a line names them count as no
	// group, nor do their tasks.
	others := "0"
	args := []any{f.chat, f.user}
	for _, g := range f.groups {
		args = append(args, g)
		others += ",$" + strconv.Itoa(len(args))
		if g.Group() {
			f.data.Groups++
		}
	}
	var msgs int
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM tasks WHERE chat_id = $1),
		(SELECT COUNT(*) FROM messages WHERE chat_id = $1),
		(SELECT COUNT(*) FROM change_sets WHERE chat_id = $1 OR user_id = $2),
		(SELECT COUNT(*) FROM rules WHERE chat_id = $1 OR user_id = $2),
		(SELECT COUNT(*) FROM tasks WHERE chat_id = $1 AND remind_at IS NOT NULL OR chat_id <> $1 AND remind_by = $2),
		(SELECT COUNT(*) FROM tasks WHERE chat_id IN (`+others+`) AND chat_id < 0 AND deleted_at IS NULL)`, args...).
		Scan(&f.data.Tasks, &msgs, &f.data.Proposals, &f.data.Rules, &f.data.Reminders, &f.data.GroupTasks)
	if err != nil {
		return fmt.Errorf("count: %w", err)
	}
	f.data.Messages += msgs
	rows, err := q.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE chat_id IN ($1,`+others+`) AND redacted = 0 AND (chat_id = $1 OR user_id = $2 OR user_id = 0)`, args...)
	if err != nil {
		return fmt.Errorf("count audit rows: %w", err)
	}
	entries, err := scanAudit(rows)
	if err != nil {
		return err
	}
	for _, a := range entries {
		if a.Tool != nod.ToolForget && f.auditRows(a.ChatID)(a) {
			f.data.AuditRows++
		}
	}
	return nil
}

// lineEdit is a line of a group's conversation that goes (drop) or gets
// body in place of what named the person, or of the person's own line
// (note).
type lineEdit struct {
	thread, seq int64
	at          time.Time
	drop        bool
	body        string
	note        bool // a line of theirs that forgottenNote replaces
}

// personTag finds the person named as a group's lines name them:
// "Alice (42)", or "member 42" when nod never saw their name.
func personTag(userID nod.UserID) *regexp.Regexp {
	id := strconv.FormatInt(int64(userID), 10)
	return regexp.MustCompile(`\(` + id + `\)|\bmember ` + id + `\b`)
}

// forgotten is what a line that named the person says in its place.
const forgotten = "someone nod was asked to forget"

// forgottenNote stands in for a topic's newest line when it was theirs:
// a topic's lines are numbered on from its newest, and a change set made
// after that line counts answers from a number above it, so the number
// must not be given again.
const forgottenNote = "A member asked nod to forget them: their lines of this conversation are gone."

// memberLines reads group g's conversation and returns the edits that
// forget userID: their lines go, and nod's lines that answered them
// (until the next person's line); another person's reply to them or
// forward of their words keeps its text but no longer names them, and a
// note of what they did goes from the notes of a turn. said are the
// texts of their lines.
func memberLines(ctx context.Context, q conn, g nod.ChatID, userID nod.UserID, tag *regexp.Regexp) (edits []lineEdit, said []string, err error) {
	rows, err := q.QueryContext(ctx, `SELECT thread, seq, body FROM messages WHERE chat_id = $1 ORDER BY thread, seq`, g)
	if err != nil {
		return nil, nil, fmt.Errorf("lines: %w", err)
	}
	defer rows.Close()
	var (
		thread int64 = -1
		theirs bool
		last   = map[int64]int64{} // each topic's newest line
	)
	for rows.Next() {
		var (
			e    lineEdit
			body string
			m    messageRecord
		)
		if err := rows.Scan(&e.thread, &e.seq, &body); err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", e.seq, err)
		}
		last[e.thread], e.at = e.seq, m.At
		if e.thread != thread {
			thread, theirs = e.thread, false
		}
		var keep bool
		if theirs, keep = forgetLine(&m, &e, userID, theirs, tag); keep {
			continue
		}
		if !e.drop {
			b, err := json.Marshal(m)
			if err != nil {
				return nil, nil, err
			}
			e.body = string(b)
		} else if m.Role == string(nod.RoleUser) && m.UserID == userID {
			said = append(said, m.Content)
			if m.Edits != "" {
				said = append(said, m.Edits)
			}
		}
		edits = append(edits, e)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	for i, e := range edits {
		if e.drop && last[e.thread] == e.seq {
			b, _ := json.Marshal(messageRecord{Role: string(nod.RoleEvent), Content: forgottenNote, At: e.at}) // strings and a time: cannot fail
			edits[i].drop, edits[i].note, edits[i].body = false, true, string(b)
		}
	}
	return edits, said, nil
}

// forgetLine decides line m: whether it is kept as it is (keep), goes
// (e.drop) or is rewritten in place (m changed); theirs says whether
// it is the person's or answers them, for the line after it.
func forgetLine(m *messageRecord, e *lineEdit, userID nod.UserID, theirs bool, tag *regexp.Regexp) (bool, bool) {
	switch nod.Role(m.Role) {
	case nod.RoleUser:
		if !m.Review && m.UserID == userID {
			e.drop = true
			return true, false
		}
		changed := false
		if tag.MatchString(m.ReplyTo) {
			m.ReplyTo, changed = "a message of "+forgotten, true
		}
		if tag.MatchString(m.Forwarded) {
			m.Forwarded, changed = forgotten, true
		}
		return false, !changed
	case nod.RoleEvent:
		// A turn's notes start the next turn: whoever's it is.
		lines := strings.Split(m.Content, "\n")
		kept := slices.DeleteFunc(slices.Clone(lines), tag.MatchString)
		switch {
		case len(kept) == len(lines):
			return false, true
		case len(kept) <= 1: // the heading alone
			e.drop = true
		default:
			m.Content = strings.Join(kept, "\n")
		}
		return false, false
	}
	if theirs {
		e.drop = true
		return true, false
	}
	return false, true
}
