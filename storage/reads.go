package storage

import (
	"context"
	"fmt"

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

// Opening reads what a turn starts from. On PostgreSQL that is one round
// trip: the events follow the topic's last message, and the tasks'
// checklists their tasks, in SQL. On SQLite, where a round trip costs
// nothing, both follow what was read before them, a topic without
// messages reads no events, the prompt's tasks are picked from their
// candidates (focusPage), and the tasks, open sets and decisions are read
// only when the chat's version moved since the process last read them
// (keptOpening).
func (db *Conversation) Opening(ctx context.Context, r nod.OpeningRequest) (nod.Opening, error) {
	var (
		o      nod.Opening
		rs     []eventRow
		stale  bool
		chatID = r.Topic.ChatID
		v      chatVersion // on SQLite (keptOpening)
		reads  []read
	)
	history := db.keptHistoryRead(r.Topic, r.Window, &o.History, &stale)
	if db.postgres {
		focus := focusRead(chatID, r.Today, r.Tasks, &o.Focus)
		reads = []read{history, openSetsRead(r.Topic, &o.Open), recentDecisionsRead(chatID, r.Decisions, &o.Decisions),
			focus, eventsRead(eventsSinceLastSQL, []any{chatID, r.Topic.Thread}, &rs), focusChecklistsRead(focus, &o.Focus)}
	} else {
		reads = []read{chatVersionRead(chatID, &v), history} // the version first: see openings
	}
	if err := db.readAll(ctx, reads...); err != nil {
		return nod.Opening{}, fmt.Errorf("turn's opening: %w", err)
	}
	if stale { // a forget rewrote what was kept: the topic is read whole
		db.kept.remove(r.Topic)
		if err := db.readOne(ctx, db.keptHistoryRead(r.Topic, r.Window, &o.History, &stale)); err != nil {
			return nod.Opening{}, fmt.Errorf("turn's opening: %w", err)
		}
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
