package bot

import (
	"context"
	"sync"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
)

// chatQueue runs each chat's jobs one at a time, in arrival order, while
// chats run in parallel. A chat's worker exits when its queue is empty, so
// idle chats cost nothing.
//
// While a chat's job runs an agent turn, the person's next plain messages
// join that turn instead of waiting behind it (see live): the turn takes
// them in before its next step, so a quick burst is answered as one
// conversation, in order, and none is answered on its own before the rest
// was seen.
type chatQueue struct {
	mu    sync.Mutex
	queue map[nod.ChatID][]job
	live  map[nod.ChatID]*live
	wg    sync.WaitGroup
}

// job is a queued piece of a chat's work; u is the message it handles,
// if it handles one, and burst the messages, if it runs a burst.
type job struct {
	run   func(context.Context)
	u     *models.Update
	burst []*models.Update
}

// live is a turn in progress in a chat, taking its person's messages
// in its topic: a message in another topic is another conversation.
type live struct {
	user   nod.UserID
	thread nod.ThreadID
	inbox  []*models.Update
}

func newChatQueue() *chatQueue {
	return &chatQueue{queue: map[nod.ChatID][]job{}, live: map[nod.ChatID]*live{}}
}

// push queues run for chat, starting the chat's worker if it is idle; u
// is the message it handles, if any.
func (q *chatQueue) push(ctx context.Context, chat nod.ChatID, u *models.Update, run func(context.Context)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	pending, running := q.queue[chat]
	q.queue[chat] = append(pending, job{run: run, u: u})
	if running {
		return
	}
	q.wg.Add(1)
	go q.work(ctx, chat)
}

func (q *chatQueue) work(ctx context.Context, chat nod.ChatID) {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		jobs := q.queue[chat]
		if len(jobs) == 0 {
			delete(q.queue, chat)
			q.mu.Unlock()
			return
		}
		next := jobs[0]
		q.queue[chat] = jobs[1:]
		q.mu.Unlock()
		next.run(ctx)
	}
}

// join hands u, a message of user in topic at, to the chat's live turn,
// and reports whether it did: only when that turn is user's, in that
// topic, and nothing else of the chat waits to run before it, so the
// chat's order holds.
func (q *chatQueue) join(at nod.Topic, user nod.UserID, u *models.Update) bool {
	chat := at.ChatID
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.live[chat]
	if l == nil || l.user != user || l.thread != at.Thread || len(q.queue[chat]) > 0 {
		return false
	}
	l.inbox = append(l.inbox, u)
	return true
}

// open makes the chat's running job a live turn of user's in topic at,
// with the messages that already wait to join it: those given, and those
// of user's in that topic queued right behind it that may join (a burst
// that arrived before the turn began). It returns how many it took from
// the queue, and false if it opened nothing: only a job the chat's worker
// runs may take messages in, since only that worker runs what is left
// for it when the turn closes; a turn run beside it would strand them,
// and the chat would wait behind them for good.
func (q *chatQueue) open(at nod.Topic, user nod.UserID, waiting []*models.Update, joins func(*models.Update) bool) (int, bool) {
	chat := at.ChatID
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, working := q.queue[chat]; !working {
		return 0, false
	}
	l := &live{user: user, thread: at.Thread, inbox: waiting}
	q.live[chat] = l
	taken := 0
	for _, j := range q.queue[chat] {
		if j.u == nil || j.u.Message == nil || j.u.Message.From == nil || nod.UserID(j.u.Message.From.ID) != user || messageTopic(j.u.Message) != at || !joins(j.u) {
			break
		}
		l.inbox = append(l.inbox, j.u)
		taken++
	}
	q.queue[chat] = q.queue[chat][taken:]
	return taken, true
}

// take returns the messages that joined the chat's live turn since the
// last take.
func (q *chatQueue) take(chat nod.ChatID) []*models.Update {
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.live[chat]
	if l == nil {
		return nil
	}
	in := l.inbox
	l.inbox = nil
	return in
}

// close ends the chat's live turn; messages that joined it after its
// last take run next, before anything queued behind, through then.
func (q *chatQueue) close(chat nod.ChatID, then func(context.Context, []*models.Update)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.live[chat]
	delete(q.live, chat)
	if l == nil || len(l.inbox) == 0 {
		return
	}
	left := l.inbox
	// The worker is running this chat (it ran the turn): the job goes
	// first among what waits.
	q.queue[chat] = append([]job{{run: func(ctx context.Context) { then(ctx, left) }, burst: left}}, q.queue[chat]...)
}

// edit puts m, an edited message, in place of the message it edits if
// that one waits in chat and nothing has started on it yet, and reports
// whether it did: then only the edited text is handled.
func (q *chatQueue) edit(chat nod.ChatID, m *models.Message) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	replace := func(us ...*models.Update) bool {
		for _, u := range us {
			if u != nil && u.Message != nil && u.Message.ID == m.ID {
				*u.Message = *m // the job reads it once it runs, under the lock's order
				return true
			}
		}
		return false
	}
	for _, j := range q.queue[chat] {
		if replace(j.u) || replace(j.burst...) {
			return true
		}
	}
	if l := q.live[chat]; l != nil {
		return replace(l.inbox...)
	}
	return false
}

// wait blocks until every queued job has run.
func (q *chatQueue) wait() { q.wg.Wait() }
