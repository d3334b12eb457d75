package bot

import (
	"context"
	"sync"
	"time"

	"github.com/nodbot/nod"
	"golang.org/x/time/rate"
)

// Limits are the outgoing message rates Telegram tolerates: about one
// message a second per chat (with short bursts), twenty a minute per
// group, thirty a second in all. Zero fields take those defaults.
type Limits struct {
	PerChat      float64 // messages a second to one chat
	PerChatBurst float64
	PerGroup     float64 // messages a minute to one group
	Global       float64 // messages a second in all
}

// DefaultLimits are Telegram's own limits, taken where Limits leave a
// field unset.
func DefaultLimits() Limits { return Limits{PerChat: 1, PerChatBurst: 3, PerGroup: 20, Global: 30} }

func (l Limits) withDefaults() Limits {
	def := DefaultLimits()
	if l.PerChat <= 0 {
		l.PerChat = def.PerChat
	}
	if l.PerChatBurst < 1 {
		l.PerChatBurst = def.PerChatBurst
	}
	if l.PerGroup <= 0 {
		l.PerGroup = def.PerGroup
	}
	if l.Global <= 0 {
		l.Global = def.Global
	}
	return l
}

// limiter paces sendMessage so that a burst of replies never earns a 429.
// Its token buckets reserve a token even when it must be waited for, so
// that waiters keep their order; time is the bot's clock.
type limiter struct {
	limits Limits
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
	paced  func() // counts a message held back

	mu     sync.Mutex
	chats  map[nod.ChatID]*rate.Limiter
	groups map[nod.ChatID]*rate.Limiter
	global *rate.Limiter
	// pruneAt is the count of buckets that prunes the refilled ones: twice
	// what the last pruning kept, so that pruning stays linear in the
	// messages sent while the buckets kept are those of the chats active
	// lately, not of every chat that ever wrote (a map never shrinks).
	pruneAt int
}

// pruneFloor is the fewest buckets kept before pruning.
const pruneFloor = 256

func newLimiter(l Limits, now func() time.Time, paced func()) *limiter {
	l = l.withDefaults()
	return &limiter{limits: l, now: now, sleep: sleepCtx, paced: paced, chats: map[nod.ChatID]*rate.Limiter{}, groups: map[nod.ChatID]*rate.Limiter{},
		global: rate.NewLimiter(rate.Limit(l.Global), int(l.Global)), pruneAt: pruneFloor}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait blocks until a message may go to chat (negative ids are groups).
func (l *limiter) wait(ctx context.Context, chat nod.ChatID) error {
	l.mu.Lock()
	now := l.now()
	if len(l.chats)+len(l.groups) >= l.pruneAt {
		l.prune(now)
		l.pruneAt = max(pruneFloor, 2*(len(l.chats)+len(l.groups)))
	}
	c := l.chats[chat]
	if c == nil {
		c = rate.NewLimiter(rate.Limit(l.limits.PerChat), int(l.limits.PerChatBurst))
		l.chats[chat] = c
	}
	d := max(c.ReserveN(now, 1).DelayFrom(now), l.global.ReserveN(now, 1).DelayFrom(now))
	if chat < 0 {
		g := l.groups[chat]
		if g == nil {
			g = rate.NewLimiter(rate.Limit(l.limits.PerGroup/60), int(l.limits.PerChatBurst))
			l.groups[chat] = g
		}
		d = max(d, g.ReserveN(now, 1).DelayFrom(now))
	}
	l.mu.Unlock()
	if d == 0 {
		return nil
	}
	l.paced()
	return l.sleep(ctx, d)
}

// prune forgets limiters that have refilled: idle chats cost nothing.
func (l *limiter) prune(now time.Time) {
	for _, m := range []map[nod.ChatID]*rate.Limiter{l.chats, l.groups} {
		for id, lim := range m {
			if lim.TokensAt(now) >= float64(lim.Burst()) {
				delete(m, id)
			}
		}
	}
}
