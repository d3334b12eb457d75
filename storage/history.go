package storage

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/nodbot/nod"
)

// A process keeps decoded the conversations of the topics that talked
// last: at most keptTopics of them, and keptBytes of their text (a line
// may hold a 64 KB tool result).
const (
	keptTopics = 256
	keptBytes  = 8 << 20
)

// keptHistory is a topic's window as a turn last read it: its messages,
// oldest first, each with its number, and the count of forgets it was
// read under (history_gen).
type keptHistory struct {
	w    nod.Window
	gen  int64
	msgs []nod.ChatMessage
	// spare is the room left after msgs in their array, shared by every
	// window read over that array: the next turn's messages go there,
	// where a copy of the window took a turn's worth of allocation, but
	// only by the read that takes the room from spare (windowAfter).
	spare *atomic.Int64
	size  int64 // the bytes of their text
}

// kept is the cache of decoded conversations.
type kept struct {
	lru *lru.Cache[nod.Topic, keptHistory]
	// mu serializes what changes the cache: a window replaced in place
	// is not evicted, and so not uncounted. Evictions, which uncount,
	// happen only inside calls made under it.
	mu    sync.Mutex
	bytes int64 // the text the cache holds, under mu
}

// newKept returns an empty cache.
func newKept() *kept {
	k := &kept{}
	c, err := lru.NewWithEvict(keptTopics, func(_ nod.Topic, h keptHistory) { k.bytes -= h.size })
	if err != nil {
		panic(err) // only for a size below 1
	}
	k.lru = c
	return k
}

// get returns the topic's kept window, if any.
func (k *kept) get(at nod.Topic) (keptHistory, bool) { return k.lru.Get(at) }

// add keeps h as the topic's window, then drops the topics that talked
// longest ago until the text kept is within keptBytes.
func (k *kept) add(at nod.Topic, h keptHistory) {
	for _, m := range h.msgs {
		h.size += int64(len(m.Content) + len(m.Wire) + len(m.Speaker) + len(m.ReplyTo) + len(m.Forwarded) + len(m.Edits))
		for _, c := range m.ToolCalls {
			h.size += int64(len(c.ID) + len(c.Name) + len(c.Arguments))
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lru.Remove(at) // uncounted as it goes
	if h.size > keptBytes {
		return
	}
	k.bytes += h.size
	k.lru.Add(at, h)
	for k.bytes > keptBytes {
		if _, _, ok := k.lru.RemoveOldest(); !ok {
			return
		}
	}
}

// remove forgets the topic's kept window.
func (k *kept) remove(at nod.Topic) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lru.Remove(at)
}

// saved takes msgs, which this process saved to the topic numbered from
// first on, into the window it keeps of it, as a read would decode them:
// the next turn's read then finds nothing new to decode. Only right
// after the window's last message: if another process saved between,
// or the window is not kept, the next read reads them. A message a
// JSON round trip would change (invalid UTF-8) is left to the read too.
func (k *kept) saved(at nod.Topic, first int64, msgs []nod.ChatMessage, now time.Time) {
	prior, ok := k.get(at)
	if !ok || first < 1 || len(msgs) == 0 {
		return
	}
	if n := len(prior.msgs); n > 0 && prior.msgs[n-1].Seq != first-1 || n == 0 && first != 1 {
		return
	}
	fresh := make([]nod.ChatMessage, len(msgs))
	for i, m := range msgs {
		if m.At.IsZero() {
			m.At = now
		}
		m.At = nod.Stamp(m.At) // as insertMessages stores it
		r := recordMessage(m)
		if !r.valid() {
			return
		}
		fresh[i] = r.message(first + int64(i))
		fresh[i].Wire = m.Wire
	}
	h := windowAfter(prior.w, prior, fresh)
	h.gen = prior.gen
	k.add(at, h)
}

// sinceSQL reads a topic's messages after a number, newest first, at most
// the window's worth, and the count of forgets (as minus itself: no
// message's number is below 1), in one statement and so one snapshot.
func sinceSQL(w nod.Window) string {
	return `SELECT seq, body, wire FROM (SELECT seq, body, wire FROM messages WHERE chat_id = $1 AND thread = $2 AND seq > $3 ORDER BY seq DESC` + limitSQL(w.Max()) + `) AS m
		UNION ALL SELECT -gen, '', NULL FROM history_gen`
}

// keptHistoryRead reads the topic's window into out as History does,
// decoding only the messages after those the process kept from the
// topic's last turn. *stale is set when a forget rewrote what was kept
// (out is then incomplete, and the topic must be read whole).
func (db *core) keptHistoryRead(at nod.Topic, w nod.Window, out *[]nod.ChatMessage, stale *bool) read {
	kept, ok := db.kept.get(at)
	ok = ok && kept.w == w
	after := int64(0)
	if ok && len(kept.msgs) > 0 {
		after = kept.msgs[len(kept.msgs)-1].Seq
	}
	return read{query: sinceSQL(w), args: []any{at.ChatID, at.Thread, after}, scan: func(rows scanner) error {
		var (
			fresh []nod.ChatMessage
			gen   int64
			seq   int64
			body  []byte
			wire  []byte
		)
		for rows.Next() {
			if err := rows.Scan(&seq, &body, &wire); err != nil {
				return err
			}
			if seq <= 0 {
				gen = -seq
				continue
			}
			msg, err := storedMessage(seq, body, wire)
			if err != nil {
				return err
			}
			fresh = append(fresh, msg)
		}
		if after > 0 && gen != kept.gen {
			*stale = true
			return nil
		}
		slices.SortFunc(fresh, func(a, b nod.ChatMessage) int { return int(a.Seq - b.Seq) })
		var prior keptHistory
		if ok && gen == kept.gen {
			prior = kept
		}
		h := windowAfter(w, prior, fresh)
		h.gen = gen
		db.kept.add(at, h)
		*out = slices.Clip(h.msgs) // nod.Opening: read only; appended to, it is copied
		return nil
	}}
}

// windowAfter returns the window w holds of prior's messages and then
// fresh (each oldest first, fresh all after prior). fresh goes into the
// room after prior's messages when prior's read is the first to claim
// it; otherwise, or with no room, the messages are copied to an array of
// their own. A window read earlier over the same array never sees the
// change: it ends before the room.
func windowAfter(w nod.Window, prior keptHistory, fresh []nod.ChatMessage) keptHistory {
	all, spare := prior.msgs, prior.spare
	room := int64(cap(all) - len(all))
	if len(fresh) > 0 && (spare == nil || room < int64(len(fresh)) || !spare.CompareAndSwap(room, room-int64(len(fresh)))) {
		all = append(slices.Clip(all), fresh...) // a new array, with room
		spare = new(atomic.Int64)
		spare.Store(int64(cap(all) - len(all)))
	} else {
		all = append(all, fresh...) // within the room claimed
	}
	if len(all) == 0 {
		return keptHistory{w: w}
	}
	start := int64(w.Start(int(all[len(all)-1].Seq)))
	i, _ := slices.BinarySearchFunc(all, start+1, func(m nod.ChatMessage, seq int64) int { return int(m.Seq - seq) })
	return keptHistory{w: w, msgs: all[i:], spare: spare}
}
