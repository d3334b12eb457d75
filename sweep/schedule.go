package sweep

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/nodbot/nod"
)

// claimBatch is how many reminders (and daily reviews) one claim takes;
// a sweep claims batch after batch until less than one is due.
const claimBatch = 100

// deliverers is how many chats one process sends reminders to at once:
// each send waits on Telegram, and the rate limiter paces them all.
const deliverers = 16

// Schedule claims the reminders and daily reviews due at now and hands
// each to deliver; what it claims is owed in the outbox first, so that a
// stop in between delivers it on the next start, once. Reminders go to
// deliver several at once, and each batch is delivered before the next
// is claimed, so that one sweep never holds more than a batch.
func (s *Sweeper) Schedule(ctx context.Context, now time.Time, deliver func(context.Context, nod.Owed)) {
	if s.d.Schedule == nil {
		return // built without it (a bench of other things)
	}
	for range 50 { // bounded: the next sweep goes on
		owed, err := s.d.Schedule.ClaimDue(ctx, now, s.opts.TimeZone, claimBatch)
		if err != nil {
			s.failed(ctx, "claim due reminders", err)
			return
		}
		s.deliverAll(ctx, owed, deliver)
		if len(owed) < claimBatch {
			return
		}
	}
}

// deliverAll hands claimed messages to deliver, a chat's in the order
// they were claimed (a stay's return before the reminders it moved),
// several chats at once, and returns when all are delivered.
func (s *Sweeper) deliverAll(ctx context.Context, owed []nod.Owed, deliver func(context.Context, nod.Owed)) {
	var (
		chats  []nod.ChatID
		byChat = map[nod.ChatID][]nod.Owed{}
	)
	for _, o := range owed {
		if _, ok := byChat[o.ChatID]; !ok {
			chats = append(chats, o.ChatID)
		}
		byChat[o.ChatID] = append(byChat[o.ChatID], o)
	}
	sem := make(chan struct{}, deliverers)
	var wg sync.WaitGroup
	for _, chat := range chats {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					s.log.Error("delivery panic", "chat", chat, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				}
				<-sem
			}()
			for _, o := range byChat[chat] {
				deliver(ctx, o)
			}
		})
	}
	wg.Wait()
}

// Reminder returns the task a claimed reminder is about, and whether the
// reminder still goes out: not when its person is no longer allowed, nor
// for a task gone or closed since it was claimed, which are settled. A
// failing database leaves it owed: the next start sends it.
func (s *Sweeper) Reminder(ctx context.Context, o nod.Owed) (nod.Task, bool) {
	if !s.stillAllowed(ctx, o) {
		return nod.Task{}, false
	}
	taskID, _, _ := strings.Cut(o.Ref, "@")
	t, err := s.d.Tasks.Task(ctx, o.ChatID, nod.TaskID(taskID))
	if err != nil || t.Status == nod.StatusDone || t.Status == nod.StatusRejected {
		if err != nil && !errors.Is(err, nod.ErrNotFound) {
			s.log.Error("reminder", "chat", o.ChatID, "task", taskID, "err", err)
			return nod.Task{}, false
		}
		s.delivered(ctx, o.ChatID, nod.OwedReminder, o.Ref)
		return nod.Task{}, false
	}
	return t, true
}

// Review reports whether a claimed daily review still runs, given the
// chat's settings as read now (nil: unread): not when its person is no
// longer allowed, nor when the chat turned its review off since; either
// is settled.
func (s *Sweeper) Review(ctx context.Context, o nod.Owed, settings *nod.ChatSettings) bool {
	if !s.stillAllowed(ctx, o) {
		return false
	}
	if settings == nil || settings.Daily == "" {
		s.delivered(ctx, o.ChatID, nod.OwedDaily, o.Ref) // turned off since
		return false
	}
	return true
}

// stillAllowed reports whether a reminder or daily review still goes out:
// the allowlist is read when it is due, not when it was set, so a person
// taken off NOD_ALLOWED_USERS gets nothing more (nor spends the model).
// Its person is whoever set it up (one set up before nod kept that goes
// out). What does not go out is marked delivered, so it is not tried
// again.
func (s *Sweeper) stillAllowed(ctx context.Context, o nod.Owed) bool {
	who := o.User
	if who == 0 || s.allowed[who] {
		return true
	}
	s.log.Info("scheduled message not sent: its person is no longer allowed", "chat", o.ChatID, "kind", o.Kind, "user", who)
	s.delivered(ctx, o.ChatID, o.Kind, o.Ref)
	return false
}

// NextDaily is when a daily review at the time of day at ("HH:MM") runs
// next in zone after now; zero for none.
func NextDaily(at string, zone *time.Location, now time.Time) time.Time {
	h, m, err := nod.ParseClock(at)
	if err != nil {
		return time.Time{}
	}
	return nod.NextDaily(h, m, zone, now)
}
