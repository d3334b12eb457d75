package confirm

import (
	"context"
	"errors"
	"fmt"

	"github.com/nodbot/nod"
)

// A person's /forget (docs/design.md §6.1): asked in their private chat,
// confirmed by a typed phrase, as a deletion is by the task's title.

// AskForget records userID's /forget in their private chat chatID and
// returns what it would delete; it waits the confirmation window for the
// phrase, replacing a /forget asked before. nod.ErrInvalid when the
// service keeps no /forget.
func (c *Service) AskForget(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PersonData, nod.ForgetRequest, error) {
	if c.forgets == nil {
		return nod.PersonData{}, nod.ForgetRequest{}, fmt.Errorf("forget: %w", nod.ErrInvalid)
	}
	data, err := c.forgets.PersonData(ctx, chatID, userID)
	if err != nil {
		return nod.PersonData{}, nod.ForgetRequest{}, err
	}
	r := nod.ForgetRequest{UserID: userID, ChatID: chatID, ExpiresAt: c.now().Add(c.window)}
	if err := c.forgets.AskForget(ctx, r); err != nil {
		return nod.PersonData{}, nod.ForgetRequest{}, err
	}
	return data, r, nil
}

// AnswerForget answers userID's /forget waiting in chatID with text: the
// phrase forgets them; anything else cancels it. A /forget whose time ran
// out ends, and text is an ordinary message (ForgetExpired). It ends once
// across deliveries of the same message: a delivery that finds it ended
// meanwhile is ForgetNone. When forgetting fails the outcome is
// ForgetDone with the error, and nothing was deleted: the /forget still
// waits.
func (c *Service) AnswerForget(ctx context.Context, chatID nod.ChatID, userID nod.UserID, text string) (nod.ForgetAnswer, error) {
	if c.forgets == nil {
		return nod.ForgetAnswer{}, nil
	}
	r, ok, err := c.forgets.ForgetRequest(ctx, userID)
	if err != nil || !ok || r.ChatID != chatID {
		return nod.ForgetAnswer{}, err // none waits here: asked in another chat, it is answered there
	}
	out := nod.ForgetAnswer{Request: r}
	if r.MessageID == 0 {
		// Its prompt never showed (sending it failed): the person's words
		// are not its answer, and it ends.
		_, _, err := c.forgets.EndForget(ctx, userID)
		return nod.ForgetAnswer{}, err
	}
	if !c.now().Before(r.ExpiresAt) {
		if _, ended, err := c.forgets.EndForget(ctx, userID); err != nil || !ended {
			return nod.ForgetAnswer{}, err
		}
		out.Outcome = nod.ForgetExpired
		return out, nil
	}
	if nod.ForgetPhrase(text, c.forget) {
		out.Forgotten, err = c.forgets.Forget(ctx, chatID, userID)
		switch {
		case errors.Is(err, nod.ErrNotFound):
			return nod.ForgetAnswer{}, nil // forgotten by another delivery, or just expired
		case err != nil:
			out.Outcome = nod.ForgetDone
			return out, err
		}
		// Logged without the person's id: the log must not keep it either.
		c.log.Info("forgot a person", "groups", out.Forgotten.Groups, "audit_rows", out.Forgotten.AuditRows)
		out.Outcome = nod.ForgetDone
		return out, nil
	}
	if _, ended, err := c.forgets.EndForget(ctx, userID); err != nil || !ended {
		return nod.ForgetAnswer{}, err
	}
	out.Outcome, out.Bare = nod.ForgetCancelled, c.read(text).Bare()
	return out, nil
}
