package bot

import (
	"context"
	"sync"

	"github.com/go-telegram/bot/models"
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
	queue map[int64][]func(context.Context)
	live  map[int64]*live
	wg    sync.WaitGroup
}

// live is a turn in progress in a chat, taking its person's messages.
type live struct {
	user  int64
	inbox []*models.Update
}

func newChatQueue() *chatQueue {
	return &chatQueue{queue: map[int64][]func(context.Context){}, live: map[int64]*live{}}
}

// push queues job for chat, starting the chat's worker if it is idle.
func (q *chatQueue) push(ctx context.Context, chat int64, job func(context.Context)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	pending, running := q.queue[chat]
	q.queue[chat] = append(pending, job)
	if running {
		return
	}
	q.wg.Add(1)
	go q.work(ctx, chat)
}

func (q *chatQueue) work(ctx context.Context, chat int64) {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		jobs := q.queue[chat]
		if len(jobs) == 0 {
			delete(q.queue, chat)
			q.mu.Unlock()
			return
		}
		job := jobs[0]
		q.queue[chat] = jobs[1:]
		q.mu.Unlock()
		job(ctx)
	}
}

// join hands u, a message of user in chat, to the chat's live turn, and
// reports whether it did: only when that turn is user's and nothing else
// of the chat waits to run before it, so the chat's order holds.
func (q *chatQueue) join(chat, user int64, u *models.Update) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.live[chat]
	if l == nil || l.user != user || len(q.queue[chat]) > 0 {
		return false
	}
	l.inbox = append(l.inbox, u)
	return true
}

// open makes the chat's running job a live turn of user's, with the
// messages that already wait to join it.
func (q *chatQueue) open(chat, user int64, waiting []*models.Update) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.live[chat] = &live{user: user, inbox: waiting}
}

// take returns the messages that joined the chat's live turn since the
// last take.
func (q *chatQueue) take(chat int64) []*models.Update {
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
func (q *chatQueue) close(chat int64, then func(context.Context, []*models.Update)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.live[chat]
	delete(q.live, chat)
	if l == nil || len(l.inbox) == 0 {
		return
	}
	left := l.inbox
	job := func(ctx context.Context) { then(ctx, left) }
	// The worker is running this chat (it ran the turn): the job goes
	// first among what waits.
	q.queue[chat] = append([]func(context.Context){job}, q.queue[chat]...)
}

// wait blocks until every queued job has run.
func (q *chatQueue) wait() { q.wg.Wait() }
