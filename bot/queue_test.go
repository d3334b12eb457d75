package bot

import (
	"context"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/nodbot/nod"
)

func textUpdate(id, user int64, msgID int, text string) *models.Update {
	return &models.Update{ID: id, Message: &models.Message{ID: msgID, Text: text, From: &models.User{ID: user}, Chat: models.Chat{ID: 1}}}
}

// An edit takes the place of its message while that waits: in the queue,
// in a live turn's inbox, or in a burst left for the next turn; once the
// job has started, the edit is not taken in and is handled on its own.
func TestQueueEdit(t *testing.T) {
	q := newChatQueue()
	started, release := make(chan struct{}), make(chan struct{})
	var ran []string
	q.push(t.Context(), 1, textUpdate(1, 42, 10, "first"), func(context.Context) { close(started); <-release })
	<-started
	queued := textUpdate(2, 42, 11, "plan the launhc")
	q.push(t.Context(), 1, queued, func(context.Context) { ran = append(ran, queued.Message.Text) })
	if !q.edit(1, &models.Message{ID: 11, Text: "plan the launch"}) {
		t.Errorf("a queued message was not edited")
	}
	if q.edit(1, &models.Message{ID: 10, Text: "first, edited"}) {
		t.Errorf("a started message was edited in place")
	}
	if q.edit(2, &models.Message{ID: 11, Text: "another chat"}) {
		t.Errorf("another chat's message was edited")
	}
	close(release)
	q.wait()
	if len(ran) != 1 || ran[0] != "plan the launch" {
		t.Errorf("ran %q, want the edited text", ran)
	}

	q.live[1] = &live{user: 42, inbox: []*models.Update{textUpdate(3, 42, 12, "and the docz")}}
	if !q.edit(1, &models.Message{ID: 12, Text: "and the docs"}) || q.take(1)[0].Message.Text != "and the docs" {
		t.Errorf("a message in a live turn's inbox was not edited")
	}
	q.live[1].inbox = []*models.Update{textUpdate(4, 42, 13, "suport")}
	q.mu.Lock()
	q.queue[1] = []job{{run: func(context.Context) {}}} // the chat's worker is busy: close queues the burst
	q.mu.Unlock()
	q.close(1, func(context.Context, []*models.Update) {})
	if !q.edit(1, &models.Message{ID: 13, Text: "support"}) {
		t.Errorf("a message in a burst left for the next turn was not edited")
	}
}

// Only a job the chat's worker runs opens a live turn: a turn run beside
// the worker would take messages in that nobody runs once it closes, and
// the chat would wait behind them for good. Outside, nothing joins.
func TestQueueOpensOnlyOnTheChatsWorker(t *testing.T) {
	q := newChatQueue()
	at := nod.Topic{ChatID: 1}
	if _, ok := q.open(at, 42, nil, func(*models.Update) bool { return true }); ok {
		t.Fatal("a turn opened with no worker running the chat")
	}
	if q.join(at, 42, textUpdate(1, 42, 10, "and this")) {
		t.Error("a message joined a turn that no worker runs")
	}
	started, release := make(chan struct{}), make(chan struct{})
	var burst []string
	q.push(t.Context(), 1, nil, func(context.Context) {
		if _, ok := q.open(at, 42, nil, func(*models.Update) bool { return true }); !ok {
			t.Error("the chat's own worker could not open a turn")
		}
		close(started)
		<-release
		q.close(1, func(_ context.Context, us []*models.Update) {
			for _, u := range us {
				burst = append(burst, u.Message.Text)
			}
		})
	})
	<-started
	if !q.join(at, 42, textUpdate(2, 42, 11, "and this")) {
		t.Error("a message did not join the worker's turn")
	}
	close(release)
	q.wait()
	if len(burst) != 1 || burst[0] != "and this" {
		t.Errorf("the joined message ran as %q, want it run after the turn", burst)
	}
}
