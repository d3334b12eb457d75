package bot

import (
	"context"
	"testing"

	"github.com/go-telegram/bot/models"
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
