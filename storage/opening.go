package storage

import (
	"context"
	"slices"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/nodbot/nod"
)

// keptOpenings bounds the openings a process keeps, as keptTopics the
// conversations.
const keptOpenings = 256

// openingKey is what a turn's opening reads besides its conversation
// depends on: the topic (its open sets), the day (the tasks that matter
// today) and how many tasks and decisions it lists.
type openingKey struct {
	topic     nod.Topic
	today     string
	tasks     int
	decisions int
}

// keptOpening is that part of an opening as read at a version of its
// chat.
type keptOpening struct {
	v         chatVersion
	focus     nod.TaskPage
	open      []nod.ChangeSet
	decisions []nod.Decision
}

// chatVersion is the count of the chat's writes to what keptOpening
// holds (chat_versions), with the count of forgets (history_gen): a
// forget deletes the person's private chat's count, which then starts
// again, and so is only ever the same count under the same forgets.
type chatVersion struct{ v, gen int64 }

// openings keeps, on SQLite, the part of a turn's opening that the chat's
// tasks, proposals and decisions make: most turns change none of them,
// and their five statements cost more than the rest of the opening. The
// chat's version, counted by triggers on every table those reads read
// (migration 00050), is read before them: a write between the two makes
// what is kept newer than its version, never older, and the next turn
// reads again.
type openings struct {
	lru *lru.Cache[openingKey, keptOpening]
}

func newOpenings() *openings {
	c, err := lru.New[openingKey, keptOpening](keptOpenings)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &openings{lru: c}
}

// chatVersionRead reads the chat's version into v, in one statement and
// so one snapshot; a chat nothing was ever written for counts 0.
func chatVersionRead(chatID nod.ChatID, v *chatVersion) read {
	return read{query: `SELECT COALESCE((SELECT v FROM chat_versions WHERE chat_id = $1), 0), gen FROM history_gen`, args: []any{chatID}, scan: func(rows scanner) error {
		for rows.Next() {
			if err := rows.Scan(&v.v, &v.gen); err != nil {
				return err
			}
		}
		return nil
	}}
}

// keptOpening fills o's focus, open sets and decisions for r on SQLite:
// from what the process kept at the chat's version v, else read afresh
// and kept.
func (db *Conversation) keptOpening(ctx context.Context, r nod.OpeningRequest, v chatVersion, o *nod.Opening) error {
	key := openingKey{topic: r.Topic, today: r.Today, tasks: r.Tasks, decisions: r.Decisions}
	if k, ok := db.openings.lru.Get(key); ok && k.v == v {
		k.fill(o)
		return nil
	}
	chatID := r.Topic.ChatID
	if err := db.readAll(ctx, openSetsRead(r.Topic, &o.Open), recentDecisionsRead(chatID, r.Decisions, &o.Decisions)); err != nil {
		return err
	}
	if err := db.focusPage(ctx, chatID, r.Today, r.Tasks, &o.Focus); err != nil {
		return err
	}
	if err := loadChecklists(ctx, db.reader(), o.Focus.Tasks); err != nil {
		return err
	}
	k := keptOpening{v: v, focus: o.Focus, open: o.Open, decisions: o.Decisions}
	db.openings.lru.Add(key, k)
	k.fill(o)
	return nil
}

// fill hands o what k holds, shared with every turn that reads it
// (nod.Opening): each slice clipped, so that an append copies it.
func (k keptOpening) fill(o *nod.Opening) {
	o.Focus, o.Open, o.Decisions = k.focus, slices.Clip(k.open), slices.Clip(k.decisions)
	o.Focus.Tasks, o.Focus.Cursors = slices.Clip(k.focus.Tasks), slices.Clip(k.focus.Cursors)
}
