package storage

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// The kept conversations stay within keptBytes however large their lines,
// the topics that talked longest ago going first, and the count of what
// they hold stays exact as windows are replaced, dropped and evicted.
func TestKeptConversationsStayWithinTheirBytes(t *testing.T) {
	t.Parallel()
	k := newKept()
	window := func(n int) keptHistory {
		return keptHistory{msgs: []nod.ChatMessage{{Role: nod.RoleTool, Content: strings.Repeat("x", n), Wire: make([]byte, n)}}}
	}
	held := func() (n int64) {
		for _, at := range k.lru.Keys() {
			h, _ := k.lru.Peek(at)
			n += h.size
		}
		return n
	}
	const line = 64 << 10 // an external tool's result at its bound, and its encoding
	for i := range 200 {
		k.add(nod.Topic{ChatID: nod.ChatID(i)}, window(line))
		k.add(nod.Topic{ChatID: nod.ChatID(i / 2)}, window(line/2)) // replaced in place
		if got, want := k.bytes, held(); got != want || got > keptBytes {
			t.Fatalf("after %d topics the count says %d bytes, the windows hold %d; want equal, at most %d", i+1, got, want, keptBytes)
		}
	}
	if _, ok := k.get(nod.Topic{ChatID: 199}); !ok {
		t.Error("the topic that talked last was dropped")
	}
	if _, ok := k.get(nod.Topic{ChatID: 1}); ok {
		t.Error("a topic that talked long ago is still kept past the bound")
	}
	k.add(nod.Topic{ChatID: 199}, window(keptBytes)) // one window alone past the bound
	if _, ok := k.get(nod.Topic{ChatID: 199}); ok || k.bytes != held() {
		t.Errorf("a window larger than the bound was kept, or miscounted: %d bytes counted, %d held", k.bytes, held())
	}
	for _, at := range k.lru.Keys() {
		k.remove(at)
	}
	if k.bytes != 0 {
		t.Errorf("nothing kept, but %d bytes counted", k.bytes)
	}
}

// A window takes the next turn's messages into the room after its own,
// where only the first read over it may put them: a window read before,
// and a second read from the same kept window, keep what they held.
func TestWindowsShareTheirArrayOnlyForward(t *testing.T) {
	t.Parallel()
	w := nod.Window{Keep: 4, Step: 2}
	msgs := func(from, to int) []nod.ChatMessage {
		var out []nod.ChatMessage
		for s := from; s <= to; s++ {
			out = append(out, nod.ChatMessage{Seq: int64(s), Content: fmt.Sprint("m", s)})
		}
		return out
	}
	seqs := func(h keptHistory) (out []int64) {
		for _, m := range h.msgs {
			if !strings.HasPrefix(m.Content, fmt.Sprint("m", m.Seq)) {
				t.Fatalf("message %d reads %q", m.Seq, m.Content)
			}
			out = append(out, m.Seq)
		}
		return out
	}
	// The first read's window fits its messages; the second's array has
	// room after them.
	first := windowAfter(w, windowAfter(w, keptHistory{}, msgs(1, 2)), msgs(3, 3))
	second := windowAfter(w, first, msgs(4, 4))
	if &second.msgs[0] != &first.msgs[0] {
		t.Fatal("the next turn's message was copied with the window, not put in the room after it")
	}
	// Another read from first (a replica's turn in between, or a read
	// that raced this one) must not write over message 4.
	other := windowAfter(w, first, []nod.ChatMessage{{Seq: 4, Content: "m4 of another"}, {Seq: 5, Content: "m5"}})
	if &other.msgs[len(other.msgs)-1] == &first.msgs[len(first.msgs)-1] {
		t.Fatal("a second read over the same window took the room the first one claimed")
	}
	if got := seqs(first); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("the first window holds %v, want 1…3", got)
	}
	if got := seqs(second); !slices.Equal(got, []int64{1, 2, 3, 4}) {
		t.Errorf("the second holds %v, want 1…4", got)
	}
	if got := other.msgs; got[len(got)-2].Content != "m4 of another" || got[len(got)-1].Seq != 5 {
		t.Errorf("the other read's window ends %+v", got[len(got)-2:])
	}
	// Turn after turn, the window slides along one array until it is full.
	h, copies := second, 0
	for s := 5; s < 40; s++ {
		next := windowAfter(w, h, msgs(s, s))
		if &next.msgs[len(next.msgs)-2] != &h.msgs[len(h.msgs)-1] && cap(h.msgs) > len(h.msgs) {
			copies++ // the message both hold is not the same one
		}
		h = next
		if got := seqs(h); got[len(got)-1] != int64(s) || len(got) > w.Max() {
			t.Fatalf("after message %d the window holds %v", s, got)
		}
	}
	if copies > 0 {
		t.Errorf("%d turns copied the window though it had room", copies)
	}
}
