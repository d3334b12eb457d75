package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// turnFunc is a Turner made of a function: the one failure the real agent
// cannot be made to produce on demand is a panic.
type turnFunc func(context.Context, nod.TurnRequest) (nod.TurnResult, error)

func (f turnFunc) Turn(ctx context.Context, r nod.TurnRequest) (nod.TurnResult, error) {
	return f(ctx, r)
}

func TestPanicIsRecoveredWithAnApology(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, turnFunc(func(_ context.Context, r nod.TurnRequest) (nod.TurnResult, error) {
		if r.Text == "boom" {
			panic("handler exploded")
		}
		return nod.TurnResult{Text: "still here"}, nil
	}))
	e.tg.SendText(chat, user, "boom")
	e.tg.SendText(chat, user, "hello")
	msgs := e.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[0].Text, "went wrong on my side") || msgs[1].Text != "still here" {
		t.Errorf("messages = %q, %q", msgs[0].Text, msgs[1].Text)
	}
}
