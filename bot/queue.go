package bot

import (
	"context"
	"sync"
)

// chatQueue runs each chat's jobs one at a time, in arrival order, while
// chats run in parallel. A chat's worker exits when its queue is empty, so
// idle chats cost nothing.
type chatQueue struct {
	mu    sync.Mutex
	queue map[int64][]func(context.Context)
	wg    sync.WaitGroup
}

func newChatQueue() *chatQueue { return &chatQueue{queue: map[int64][]func(context.Context){}} }

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

// wait blocks until every queued job has run.
func (q *chatQueue) wait() { q.wg.Wait() }
