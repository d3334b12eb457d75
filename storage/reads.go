package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/nodbot/nod"
)

// read is a query outside a transaction and what reads its rows.
type read struct {
	query string
	args  []any
	scan  func(rows scanner) error
}

// readAll runs reads, each scanned before the next one's rows are read.
// On PostgreSQL they go out as one pipeline on one connection, one round
// trip for them all: a turn starts from half a dozen independent reads,
// and each round trip costs nod more than most of them. On SQLite each
// runs prepared on the read pool, as a single read does.
func (db *core) readAll(ctx context.Context, reads ...read) error {
	if !db.postgres {
		for _, r := range reads {
			if err := db.readOne(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}
	db.counts.stmts.Add(int64(len(reads)))
	db.counts.trips.Add(1)
	c, err := db.rdb.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		var b pgx.Batch
		for _, r := range reads {
			b.Queue(r.query, r.args...)
		}
		br := dc.(*stdlib.Conn).Conn().SendBatch(ctx, &b)
		for _, r := range reads {
			rows, err := br.Query()
			if err == nil {
				err = r.scan(rows)
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
			}
			if err != nil {
				br.Close()
				return err
			}
		}
		return br.Close()
	})
}

// readOne runs a single read where reads run.
func (db *core) readOne(ctx context.Context, r read) error {
	rows, err := db.reader().QueryContext(ctx, r.query, r.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := r.scan(rows); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read rows: %w", err)
	}
	return nil
}

// Opening reads what a turn starts from, and saves r.Words with it
// unless events came after the conversation's last message (the turn
// writes its note on them before the words). On PostgreSQL the reads,
// the checks and the words' write are one round trip.
func (db *Conversation) Opening(ctx context.Context, r nod.OpeningRequest) (nod.Opening, error) {
	if r.Words != nil && db.postgres {
		return db.openAndSave(ctx, r)
	}
	o, err := db.opening(ctx, r)
	if err != nil || r.Words == nil || len(o.Events) > 0 {
		return o, err
	}
	if err := db.SaveTurn(ctx, *r.Words); err != nil {
		return nod.Opening{}, err
	}
	o.Saved = true
	return o, nil
}

// opening reads what a turn starts from. On PostgreSQL that is one round
// trip: the events follow the topic's last message, and the tasks'
// checklists their tasks, in SQL. On SQLite, where a round trip costs
// nothing, both follow what was read before them, a topic without
// messages reads no events, the prompt's tasks are picked from their
// candidates (focusPage), and the tasks, open sets and decisions are read
// only when the chat's version moved since the process last read them
// (keptOpening).
func (db *Conversation) opening(ctx context.Context, r nod.OpeningRequest) (nod.Opening, error) {
	var (
		o      nod.Opening
		rs     []eventRow
		stale  bool
		chatID = r.Topic.ChatID
		v      chatVersion // on SQLite (keptOpening)
		reads  []read
	)
	if db.postgres {
		reads = db.openingReads(r, &o, &rs, &stale)
	} else {
		reads = []read{chatVersionRead(chatID, &v), db.keptHistoryRead(r.Topic, r.Window, &o.History, &stale)} // the version first: see openings
	}
	if err := db.readAll(ctx, reads...); err != nil {
		return nod.Opening{}, fmt.Errorf("turn's opening: %w", err)
	}
	if err := db.unstale(ctx, r, &o, stale, 0); err != nil {
		return nod.Opening{}, err
	}
	if !db.postgres {
		if err := db.keptOpening(ctx, r, v, &o); err != nil {
			return nod.Opening{}, fmt.Errorf("turn's opening: %w", err)
		}
		if n := len(o.History); n > 0 {
			if err := db.readOne(ctx, eventsRead(eventsSQL, []any{chatID, micros(o.History[n-1].At), r.Topic.Thread}, &rs)); err != nil {
				return nod.Opening{}, fmt.Errorf("turn's opening: %w", err)
			}
		}
	}
	var err error
	if o.Events, err = db.events(ctx, r.Topic, rs); err != nil {
		return nod.Opening{}, fmt.Errorf("turn's opening: %w", err)
	}
	return o, nil
}

// openingReads are the reads of a turn's opening on PostgreSQL, into o,
// the event rows into rs.
func (db *Conversation) openingReads(r nod.OpeningRequest, o *nod.Opening, rs *[]eventRow, stale *bool) []read {
	chatID := r.Topic.ChatID
	focus := focusRead(chatID, r.Today, r.Tasks, &o.Focus)
	return []read{db.keptHistoryRead(r.Topic, r.Window, &o.History, stale), openSetsRead(r.Topic, &o.Open), recentDecisionsRead(chatID, r.Decisions, &o.Decisions),
		focus, eventsRead(eventsSinceLastSQL, []any{chatID, r.Topic.Thread}, rs), focusChecklistsRead(focus, &o.Focus)}
}

// unstale reads the topic's window whole when a forget rewrote what the
// process kept of it (keptHistoryRead), leaving out the messages from
// number saved on, which the opening saved itself (0: none).
func (db *Conversation) unstale(ctx context.Context, r nod.OpeningRequest, o *nod.Opening, stale bool, saved int64) error {
	if !stale {
		return nil
	}
	db.kept.remove(r.Topic)
	if err := db.readOne(ctx, db.keptHistoryRead(r.Topic, r.Window, &o.History, &stale)); err != nil {
		return fmt.Errorf("turn's opening: %w", err)
	}
	if saved > 0 {
		i := slices.IndexFunc(o.History, func(m nod.ChatMessage) bool { return m.Seq >= saved })
		if i >= 0 {
			o.History = o.History[:i:i]
		}
	}
	return nil
}

// errEventsCame fails a turn's opening write that found events after
// the conversation's last message: the words wait for the turn's note
// on them.
var errEventsCame = errors.New("events came after the conversation")

// noEventsSinceLast checks that no event came after the topic's last
// message ($1 the chat, $2 the topic).
var noEventsSinceLast = newCheck(`NOT EXISTS (` + eventsSinceLastSQL + `)`)

// openAndSave is Opening with words on PostgreSQL: the reads, then the
// checks that the settings are those the turn was routed by and that no
// events wait, then the words' write, in one transaction sent in one
// round trip. A check that fails rolls the write back; the reads stand.
func (db *Conversation) openAndSave(ctx context.Context, r nod.OpeningRequest) (nod.Opening, error) {
	var (
		o      nod.Opening
		rs     []eventRow
		stale  bool
		first  int64
		chatID = r.Topic.ChatID
		now    = db.now()
	)
	err := db.inTx(ctx, func(tx conn) error {
		o, rs, stale, first = nod.Opening{}, nil, false, 0 // a transaction tried again reads again
		for _, rd := range db.openingReads(r, &o, &rs, &stale) {
			if err := tx.readLater(ctx, rd.query, rd.args, rd.scan); err != nil {
				return err
			}
		}
		if s := r.Settings; s != nil && s.Digest != "" {
			tx.guard(nod.ErrSettingsMoved, settingsUnchanged, chatID, s.UserID, s.Digest)
		}
		tx.guard(errEventsCame, noEventsSinceLast, chatID, r.Topic.Thread)
		return db.saveTurn(ctx, tx, *r.Words, now, &first)
	})
	switch {
	case errors.Is(err, errEventsCame):
	case err != nil:
		return nod.Opening{}, fmt.Errorf("turn's opening: %w", handledBefore(err, r.Words.Update))
	default:
		o.Saved = true
	}
	if err := db.unstale(ctx, r, &o, stale, first); err != nil {
		return nod.Opening{}, err
	}
	if o.Saved {
		db.kept.saved(r.Topic, first, r.Words.Messages, now)
	}
	if o.Events, err = db.events(ctx, r.Topic, rs); err != nil {
		return nod.Opening{}, fmt.Errorf("turn's opening: %w", err)
	}
	return o, nil
}
