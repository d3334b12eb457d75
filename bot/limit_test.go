package bot

import (
	"context"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
)

// The limiter lets a burst of three through per chat, then one a second;
// groups get twenty a minute; all chats share thirty a second.
func TestLimiter(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	l := newLimiter(Limits{}, clock.Now, func() {})
	var waits []time.Duration
	l.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	for range 5 {
		l.wait(t.Context(), 100)
	}
	if len(waits) != 2 || waits[0] != time.Second || waits[1] != 2*time.Second {
		t.Errorf("private chat waits = %v, want [1s 2s]", waits)
	}
	waits = nil
	clock.Advance(time.Minute)
	for range 4 {
		l.wait(t.Context(), -200)
	}
	if len(waits) != 1 || waits[0] != 3*time.Second {
		t.Errorf("group waits = %v, want [3s]", waits)
	}
	waits = nil
	clock.Advance(time.Minute)
	for chat := range int64(31) {
		l.wait(t.Context(), nod.ChatID(1000+chat))
	}
	if len(waits) != 1 || waits[0] > 40*time.Millisecond {
		t.Errorf("global waits = %v, want one short wait", waits)
	}
	clock.Advance(time.Hour)
	l.prune(clock.Now())
	if len(l.chats) != 0 || len(l.groups) != 0 {
		t.Errorf("idle buckets kept: %d chats, %d groups", len(l.chats), len(l.groups))
	}
	// Chats that wrote once and went quiet are forgotten as others
	// write: what is kept is bounded by the chats active lately, not by
	// every chat that ever wrote.
	for chat := range int64(10_000) {
		l.wait(t.Context(), nod.ChatID(5000+chat))
		if chat%100 == 0 {
			clock.Advance(time.Minute)
		}
	}
	if n := len(l.chats); n > 2*pruneFloor {
		t.Errorf("after 10,000 chats wrote once each, %d buckets kept, want at most %d", n, 2*pruneFloor)
	}
}
