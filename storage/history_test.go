package storage

import (
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// The kept conversations stay within keptBytes however large their lines,
// the topics that talked longest ago going first, and the count of what
// they hold stays exact as windows are replaced, dropped and evicted.
func TestKeptConversationsStayWithinTheirBytes(t *testing.T) {
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
