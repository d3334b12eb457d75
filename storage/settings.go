package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/nodbot/nod"
)

// ChatSettings returns the chat's settings with userID's mode and
// circuit breaker, and whether userID's deletion question or /forget
// waits in it; a chat never configured has the defaults.
//
// On PostgreSQL the reading carries its Digest, and the process keeps it
// (KeptSettings).
func (db *Settings) ChatSettings(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.ChatSettings, error) {
	if !db.postgres {
		return readSettings(ctx, db.reader(), chatID, userID)
	}
	var digest string
	s, err := scanSettings(db.reader().QueryRowContext(ctx, digestedSettingsSQL, chatID, userID), chatID, userID, &digest)
	if err != nil {
		return s, err
	}
	s.Digest = digest
	db.settings.Add(settingsKey{chatID, userID}, s)
	return s, nil
}

// settingsKey names a chat's settings as one member reads them.
type settingsKey struct {
	chat nod.ChatID
	user nod.UserID
}

// keptSettings bounds the readings of settings a process keeps: a few
// hundred bytes each, for the people who wrote last.
const keptSettings = 4096

func newKeptSettings() *lru.Cache[settingsKey, nod.ChatSettings] {
	c, err := lru.New[settingsKey, nod.ChatSettings](keptSettings)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return c
}

// KeptSettings returns the chat's settings as this process last read
// them for userID, on PostgreSQL, where a read is a round trip: a plain
// message is routed by them, and the turn it starts checks them by their
// Digest in its first write (nod.OpeningRequest.Settings). None are kept
// on SQLite, where a read costs less than the check.
func (db *Settings) KeptSettings(chatID nod.ChatID, userID nod.UserID) (nod.ChatSettings, bool) {
	if !db.postgres {
		return nod.ChatSettings{}, false
	}
	return db.settings.Get(settingsKey{chatID, userID})
}

// PressSettings is ChatSettings of no member read together with what
// ButtonSentWith reports of data pressed on message msgID: a press needs
// both before anything else, and gets them in one statement.
func (db *Settings) PressSettings(ctx context.Context, chatID nod.ChatID, msgID int, data string) (s nod.ChatSettings, sent, recorded bool, err error) {
	var on, all int64
	s, err = scanSettings(db.reader().QueryRowContext(ctx, pressSettingsSQL, chatID, 0, msgID, data), chatID, 0, &all, &on)
	if err != nil {
		return s, false, false, err
	}
	return s, on > 0, all > 0, nil
}

// settingsSQL reads a chat's settings and member $2's mode, one row
// whether or not the chat has settings or a waiting deletion.
const (
	settingsColumns = `SELECT COALESCE(m.mode, ''), m.breaker_until, COALESCE(s.lang, ''), COALESCE(s.lang_seen, ''),
		EXISTS (SELECT 1 FROM pending_deletions d WHERE d.chat_id = c.chat_id AND d.user_id = $2 AND d.expires_at > 0),
		EXISTS (SELECT 1 FROM forget_requests f WHERE f.user_id = $2 AND f.chat_id = c.chat_id),
		COALESCE(s.tz, ''), COALESCE(s.daily_at, ''), COALESCE(s.daily_quiet, 0), s.zone_asked,
		z.back_due, COALESCE(z.back_tz, z.before_tz, '')`
	// The chat's stay, if one is set: the return due first.
	settingsFrom = `
		FROM (SELECT CAST($1 AS BIGINT) AS chat_id) c LEFT JOIN chat_settings s ON s.chat_id = c.chat_id
		LEFT JOIN member_modes m ON m.chat_id = c.chat_id AND m.user_id = $2
		LEFT JOIN zone_changes z ON z.id = (SELECT id FROM zone_changes WHERE back_due IS NOT NULL AND chat_id = c.chat_id ORDER BY back_due LIMIT 1)`
	settingsSQL = settingsColumns + settingsFrom
	// digestedSettingsSQL adds, on PostgreSQL, the digest of the row.
	digestedSettingsSQL = `SELECT s.*, md5(CAST(s AS TEXT)) FROM (` + settingsSQL + `) AS s`
	// pressSettingsSQL adds how many buttons message $3 was recorded
	// with, and how many of them carry data $4 (ButtonSentWith).
	pressSettingsSQL = settingsColumns + `, b.n, b.sent` + settingsFrom + `
		CROSS JOIN (SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN data = $4 THEN 1 ELSE 0 END), 0) AS sent
			FROM button_messages WHERE chat_id = $1 AND message_id = $3) b`
)

// settingsUnchanged checks, on PostgreSQL, that member $2's settings in
// chat $1 are those of digest $3.
var settingsUnchanged = newCheck(`(SELECT md5(CAST(s AS TEXT)) FROM (` + settingsSQL + `) AS s) = $3`)

// readSettings reads the chat's settings with userID's mode where q runs.
func readSettings(ctx context.Context, q conn, chatID nod.ChatID, userID nod.UserID) (nod.ChatSettings, error) {
	return scanSettings(q.QueryRowContext(ctx, settingsSQL, chatID, userID), chatID, userID)
}

// scanSettings scans a row of settingsSQL, and into more what the query
// adds after its columns.
func scanSettings(row *sql.Row, chatID nod.ChatID, userID nod.UserID, more ...any) (nod.ChatSettings, error) {
	s := nod.ChatSettings{ChatID: chatID, UserID: userID, Mode: nod.ModeSmart}
	var (
		mode    string
		breaker sql.NullInt64
		quiet   int
		asked   sql.NullInt64
		back    sql.NullInt64
	)
	dest := append([]any{&mode, &breaker, &s.Language, &s.LanguageSeen, &s.DeletionAsked, &s.ForgetAsked, &s.TimeZone, &s.Daily, &quiet, &asked, &back, &s.ZoneBack}, more...)
	if err := row.Scan(dest...); err != nil {
		return s, fmt.Errorf("chat settings: %w", err)
	}
	if mode != "" {
		s.Mode = nod.Mode(mode)
	}
	s.BreakerUntil, s.DailyQuiet, s.ZoneAsked, s.ZoneUntil = timePtr(breaker), quiet != 0, timePtr(asked), timePtr(back)
	return s, nil
}

// SetMode sets userID's mode in the chat and ends their circuit breaker,
// with its audit row (tool "mode"), in one transaction.
func (db *Settings) SetMode(ctx context.Context, chatID nod.ChatID, userID nod.UserID, m nod.Mode) error {
	now := db.now()
	return db.inTx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO member_modes (chat_id, user_id, mode, breaker_until, updated_at) VALUES ($1, $2, $3, NULL, $4)
			ON CONFLICT (chat_id, user_id) DO UPDATE SET mode = excluded.mode, breaker_until = NULL, updated_at = excluded.updated_at`,
			chatID, userID, string(m), micros(now))
		if err != nil {
			return fmt.Errorf("set mode: %w", err)
		}
		args, _ := json.Marshal(map[string]string{"mode": string(m)})
		return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: nod.ToolMode, Args: args, Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: now})
	})
}

// TripBreaker makes nod ask userID for everything in the chat until
// until, keeping their chosen mode to return to; audited as a mode change.
func (db *Settings) TripBreaker(ctx context.Context, chatID nod.ChatID, userID nod.UserID, until time.Time) error {
	now := db.now()
	return db.inTx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO member_modes (chat_id, user_id, mode, breaker_until, updated_at) VALUES ($1, $2, 'smart', $3, $4)
			ON CONFLICT (chat_id, user_id) DO UPDATE SET breaker_until = excluded.breaker_until, updated_at = excluded.updated_at`,
			chatID, userID, micros(until), micros(now))
		if err != nil {
			return fmt.Errorf("trip breaker: %w", err)
		}
		args, _ := json.Marshal(map[string]string{"mode": string(nod.ModeAlways), "until": nod.Stamp(until).Format(time.RFC3339)})
		return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: nod.ToolMode, Args: args, Outcome: nod.OutcomeExecuted, Reason: "circuit breaker", At: now})
	})
}

// SetLanguage sets the language chosen for the chat; empty follows the
// language Telegram reports.
func (db *Settings) SetLanguage(ctx context.Context, chatID nod.ChatID, code string) error {
	return db.setText(ctx, chatID, "lang", code)
}

// SeeLanguage records the language_code Telegram reported in the chat.
func (db *Settings) SeeLanguage(ctx context.Context, chatID nod.ChatID, code string) error {
	return db.setText(ctx, chatID, "lang_seen", code)
}

// setText sets one text column of the chat's settings; column is one of
// ours, never input.
func (db *Settings) setText(ctx context.Context, chatID nod.ChatID, column, value string) error {
	_, err := db.exec(ctx, `INSERT INTO chat_settings (chat_id, `+column+`, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (chat_id) DO UPDATE SET `+column+` = excluded.`+column+`, updated_at = excluded.updated_at`,
		chatID, value, micros(db.now()))
	if err != nil {
		return fmt.Errorf("chat settings %s: %w", column, err)
	}
	return nil
}

// RecordEval keeps what nod eval found for a classifier model.
func (db *DB) RecordEval(ctx context.Context, e nod.EvalRun) error {
	_, err := db.exec(ctx, `INSERT INTO evals (model, at, cases, calls, false_explicit, false_confirm) VALUES ($1, $2, $3, $4, $5, $6)`,
		e.Model, micros(e.At), e.Cases, e.Calls, e.FalseExplicit, e.FalseConfirm)
	if err != nil {
		return fmt.Errorf("record eval: %w", err)
	}
	return nil
}

// LastEval returns the latest eval of model; nod.ErrNotFound if none.
func (db *DB) LastEval(ctx context.Context, model string) (nod.EvalRun, error) {
	e := nod.EvalRun{Model: model}
	var at int64
	err := db.reader().QueryRowContext(ctx, `SELECT at, cases, calls, false_explicit, false_confirm FROM evals WHERE model = $1 ORDER BY at DESC LIMIT 1`, model).
		Scan(&at, &e.Cases, &e.Calls, &e.FalseExplicit, &e.FalseConfirm)
	if noRows(err) {
		return e, fmt.Errorf("eval of %s: %w", model, nod.ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("eval of %s: %w", model, err)
	}
	e.At = fromMicros(at)
	return e, nil
}
