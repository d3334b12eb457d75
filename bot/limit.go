package bot

import (
	"context"
	"sync"
	"time"
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

func (l Limits) withDefaults() Limits {
	if l.PerChat <= 0 {
		l.PerChat = 1
	}
	if l.PerChatBurst < 1 {
		l.PerChatBurst = 3
	}
	if l.PerGroup <= 0 {
		l.PerGroup = 20
	}
	if l.Global <= 0 {
		l.Global = 30
	}
	return l
}

// bucket is a token bucket: rate tokens a second, at most burst.
type bucket struct {
	rate, burst, tokens float64
	last                time.Time
}

// take takes a token at now and returns how long to wait for it; the
// token is reserved even when it must be waited for, so that waiters keep
// their order.
func (b *bucket) take(now time.Time) time.Duration {
	if b.last.IsZero() {
		b.tokens = b.burst
	} else {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// limiter paces sendMessage so that a burst of replies never earns a 429.
type limiter struct {
	limits Limits
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error

	mu     sync.Mutex
	chats  map[int64]*bucket
	groups map[int64]*bucket
	global bucket
}

func newLimiter(l Limits) *limiter {
	l = l.withDefaults()
	return &limiter{limits: l, now: time.Now, sleep: sleepCtx, chats: map[int64]*bucket{}, groups: map[int64]*bucket{},
		global: bucket{rate: l.Global, burst: l.Global}}
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
func (l *limiter) wait(ctx context.Context, chat int64) error {
	l.mu.Lock()
	now := l.now()
	if len(l.chats) > 10_000 {
		l.prune(now)
	}
	c := l.chats[chat]
	if c == nil {
		c = &bucket{rate: l.limits.PerChat, burst: l.limits.PerChatBurst}
		l.chats[chat] = c
	}
	d := max(c.take(now), l.global.take(now))
	if chat < 0 {
		g := l.groups[chat]
		if g == nil {
			g = &bucket{rate: l.limits.PerGroup / 60, burst: l.limits.PerChatBurst}
			l.groups[chat] = g
		}
		d = max(d, g.take(now))
	}
	l.mu.Unlock()
	if d == 0 {
		return nil
	}
	return l.sleep(ctx, d)
}

// prune forgets buckets that have refilled: idle chats cost nothing.
func (l *limiter) prune(now time.Time) {
	for id, b := range l.chats {
		if now.Sub(b.last).Seconds()*b.rate >= b.burst {
			delete(l.chats, id)
		}
	}
	for id, b := range l.groups {
		if now.Sub(b.last).Seconds()*b.rate >= b.burst {
			delete(l.groups, id)
		}
	}
}
