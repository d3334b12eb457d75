package bot_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/bot"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage/storagetest"
)

// turnFunc is a Turner made of a function: the one failure the real agent
// cannot be made to produce on demand is a panic.
type turnFunc func(context.Context, agent.Request) (agent.Result, error)

func (f turnFunc) Turn(ctx context.Context, r agent.Request) (agent.Result, error) { return f(ctx, r) }

func TestPanicIsRecoveredWithAnApology(t *testing.T) {
	tg := telegramtest.New(t)
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(t, "sqlite", clock.Now)
	log := slog.New(slog.DiscardHandler)
	turner := turnFunc(func(_ context.Context, r agent.Request) (agent.Result, error) {
		if r.Text == "boom" {
			panic("handler exploded")
		}
		return agent.Result{Text: "still here"}, nil
	})
	b := bot.New(bot.Options{Token: telegramtest.Token, APIURL: tg.URL, AllowedUsers: []int64{42}, PollTimeout: 2 * time.Second},
		db, turner, agent.NewConfirmations(db, clock.Now, log, nil), clock.Now, log)
	if err := b.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	tg.SendText(100, 42, "boom")
	tg.SendText(100, 42, "hello")
	msgs := tg.WaitBotMessages(100, 2)
	if !strings.Contains(msgs[0].Text, "went wrong on my side") || msgs[1].Text != "still here" {
		t.Errorf("messages = %q, %q", msgs[0].Text, msgs[1].Text)
	}
}
