package bot

import (
	"context"
	"math"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// cmdForget asks the person to confirm that nod forget them, showing
// what would go (docs/design.md §6.1). In a group it only says where:
// there the others would read the scope, and the phrase typed back.
func (b *Bot) cmdForget(ctx context.Context, in incoming) {
	if in.speaker != "" {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.ForgetGroup))
		return
	}
	data, r, err := b.answers.AskForget(ctx, in.chat, in.user)
	if err != nil {
		b.log.Error("ask forget", "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	wait := int(math.Round(r.ExpiresAt.Sub(b.now()).Minutes()))
	id := b.reply(ctx, in.topic(), in.loc.Text(formatting.ForgetAsk.With(formatting.ForgetScope{PersonData: data, Wait: &wait})))
	if id == 0 {
		return
	}
	if err := b.messages.SetForgetMessage(ctx, in.user, id); err != nil {
		b.log.Warn("remember forget prompt", "err", err)
	}
}

// forgetAnswer answers the person's waiting /forget, if one waits in
// this chat (confirm.Service.AnswerForget decides), and says what
// happened. consumed is false when the message is then read as any
// other: the /forget's time had run out, or a cancelling message was
// more than a bare yes or no.
func (b *Bot) forgetAnswer(ctx context.Context, in incoming) (consumed bool) {
	if in.speaker != "" || in.settings != nil && !in.settings.ForgetAsked {
		return false // only a private chat's /forget waits, and none does
	}
	a, err := b.answers.AnswerForget(ctx, in.chat, in.user, in.text)
	switch a.Outcome {
	case nod.ForgetNone:
		if err != nil {
			b.log.Error("answer forget", "err", err)
		}
		return false
	case nod.ForgetExpired:
		b.closeForget(ctx, a.Request, in.loc, formatting.ForgetPromptExpired)
		return false
	case nod.ForgetCancelled:
		b.closeForget(ctx, a.Request, in.loc, formatting.ForgetPromptCancelled)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.ForgetCancelled))
		return a.Bare
	}
	if err != nil {
		// Nothing was deleted, and the /forget still waits for the phrase.
		b.log.Error("forget", "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return true
	}
	b.closeForget(ctx, a.Request, in.loc, formatting.ForgetPromptDone)
	b.names.Range(func(k, _ any) bool { // the names this process keeps of them
		if k.([2]int64)[1] == int64(in.user) {
			b.names.Delete(k)
		}
		return true
	})
	b.reply(ctx, in.topic(), in.loc.Text(formatting.Forgotten.With(a.Forgotten)))
	return true
}

// closeForget edits a /forget's prompt, so that it no longer reads as
// waiting.
func (b *Bot) closeForget(ctx context.Context, r nod.ForgetRequest, loc *formatting.Locale, tmpl formatting.Fixed) {
	if r.MessageID == 0 {
		return
	}
	if err := b.send.edit(ctx, r.ChatID, r.MessageID, loc.Text(tmpl)); err != nil {
		b.log.Warn("close forget prompt", "err", err)
	}
}
