package main

import (
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// The typing action does not hold up the turn: the model's first call is
// made while Telegram has not yet answered sendChatAction, and the reply
// still goes out after the action, never before it.
func TestTypingDoesNotDelayTheModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	modelCalled := make(chan struct{})
	h.tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		if method != "sendChatAction" {
			return nil
		}
		// Answer only once the model was asked: a turn that waited for
		// this answer would never ask it.
		select {
		case <-modelCalled:
		case <-time.After(telegramtest.WaitTimeout):
			t.Errorf("the model was not called while sendChatAction waited for its answer")
		}
		return nil
	})
	var once sync.Once
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		once.Do(func() { close(modelCalled) })
		return openaitest.Text("Nothing to do.")
	})
	h.start()
	h.tg.SendText(chat, user, "hello")
	h.tg.WaitBotMessages(chat, 1)
	var order []string
	for _, c := range h.tg.Calls("") {
		if c.Method == "sendChatAction" || c.Method == "sendMessage" {
			order = append(order, c.Method)
		}
	}
	if len(order) != 2 || order[0] != "sendChatAction" {
		t.Errorf("calls %v, want sendChatAction, then sendMessage", order)
	}
}
