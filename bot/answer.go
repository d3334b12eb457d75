package bot

import (
	"context"
	"unicode/utf8"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// The order in which a text message is read (docs/design.md §3.4, first match wins):
// the answer to a waiting typed confirmation (a /forget's phrase, then a
// deletion's title); a command; yes/no to a change
// set; a rejection's reason; anything else goes to the agent.

// typedConfirmation answers the person's asked deletion, if they have
// one (confirm.Service.AnswerDeletion decides), and says what happened.
// Unless a cancelling message was a bare yes or no, it is then read as
// any other (consumed is false), so that "actually keep it, but make it
// P3" is not lost. moveOn is set when the question ended (answered,
// cancelled or expired): the person's next deletion is asked once this
// message has been handled.
func (b *Bot) typedConfirmation(ctx context.Context, in incoming) (consumed, moveOn bool) {
	if in.settings != nil && !in.settings.DeletionAsked {
		return false, false // no question of theirs waits: nothing to look for
	}
	a, err := b.answers.AnswerDeletion(ctx, in.topic(), in.user, in.text, in.spoken)
	d := a.Deletion
	switch a.Outcome {
	case nod.DeletionNone:
		if err != nil {
			b.log.Error("typed confirmation", "chat", in.chat, "err", err)
		}
		return false, false
	case nod.DeletionExpired:
		return false, true // the message is an ordinary one
	case nod.DeletionAgain:
		b.reply(ctx, in.topic(), in.loc.Text(formatting.DeleteAgain.With(d.Title)))
		return true, false // the question stays open
	case nod.DeletionCancelled:
		b.closePrompt(ctx, in.chat, in.loc, d, formatting.DeletePromptCancelled, nil)
		switch {
		case len(a.Rest) == 0 && a.Yes:
			b.reply(ctx, in.topic(), in.loc.Text(formatting.DeleteYesCancelled.With(d.Title)))
		case len(a.Rest) == 0:
			b.reply(ctx, in.topic(), in.loc.Text(formatting.DeleteCancelled.With(d.Title)))
		default:
			kept := formatting.KeptLine{Title: d.Title}
			for _, r := range a.Rest {
				kept.Rest = append(kept.Rest, r.Title)
			}
			b.reply(ctx, in.topic(), in.loc.Text(formatting.DeleteLineCancelled.With(kept)))
		}
		return a.Bare, true // a bare "yes" or "no" ends there
	}
	if err != nil {
		// The title matched, but the task could not go (it went to the
		// trash meanwhile, say): the question must not read "deleted".
		b.closePrompt(ctx, in.chat, in.loc, d, formatting.DeletePromptFailed, nil)
		b.reply(ctx, in.topic(), formatting.Message{HTML: formatting.Escape(b.explain(in.loc, err, "delete", "chat", in.chat))})
		return true, true
	}
	b.closePrompt(ctx, in.chat, in.loc, d, formatting.DeletePromptDone, &a.Applied.After)
	deleted := in.loc.Text(formatting.Deleted.With(formatting.Trashed{Title: d.Title, Keep: b.opts.TrashRetention}))
	deleted = in.loc.Day().WithReminderHeld(deleted, "", nod.HeldReminder(a.Applied.After, b.now()))
	b.reply(ctx, in.topic(), in.loc.Undo().Button(deleted, a.Applied.Undo.ID))
	return true, true
}

// askDeletion moves the person's line of deletions on: a question whose
// time ran out says so, and the next deletion in line is asked.
func (b *Bot) askDeletion(ctx context.Context, chat nod.ChatID, user nod.UserID, loc *formatting.Locale) {
	step, err := b.answers.AskDeletion(ctx, chat, user)
	if err != nil {
		b.log.Error("ask deletion", "chat", chat, "err", err)
		return
	}
	for _, d := range step.Expired {
		b.closePrompt(ctx, chat, loc, d, formatting.DeletePromptExpired, nil)
	}
	if step.Ask != nil {
		b.showDeletion(ctx, chat, loc, *step.Ask, step.Behind)
	}
}

// showDeletion sends an asked deletion's question to its topic, with
// behind deletions waiting after it, and records its message; until then the question is owed, and the person's
// words are not its answer.
func (b *Bot) showDeletion(ctx context.Context, chat nod.ChatID, loc *formatting.Locale, d nod.PendingDeletion, behind int) {
	id := b.reply(ctx, d.Topic, loc.Tasks().DeleteAsk(d, b.opts.TrashRetention, behind, b.twin(ctx, chat, d, nil), b.now()))
	if id == 0 {
		return
	}
	if err := b.messages.SetDeletionMessage(ctx, chat, d.ID, id); err != nil {
		b.log.Warn("remember deletion prompt", "chat", chat, "err", err)
		return
	}
	b.delivered(ctx, chat, nod.OwedDeletion, string(d.ID))
}

// twin is the task deletion d asks about when another task of the chat
// has its title, which is what the person types: nil otherwise, or when
// it cannot tell. deleted is that task as it went to the trash, once the
// deletion is done; until then it is read.
func (b *Bot) twin(ctx context.Context, chat nod.ChatID, d nod.PendingDeletion, deleted *nod.Task) *nod.Task {
	same, err := b.tasks.SameTitle(ctx, chat, d.TaskID, d.Title)
	switch {
	case err != nil || !same:
		return nil
	case deleted != nil:
		return deleted
	}
	t, err := b.tasks.Task(ctx, chat, d.TaskID)
	if err != nil {
		return nil
	}
	return &t
}

// backTwin adds to m, which says task id came back to the list, that
// another task has its title: one asked for anew while it was away.
func (b *Bot) backTwin(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, id nod.TaskID, title string, m formatting.Message) formatting.Message {
	if same, err := b.tasks.SameTitle(ctx, chat, id, title); err != nil || !same {
		return m
	}
	return loc.Tasks().BackTwin(m, title)
}

// yesNo says what a yes/no in words decided (confirm.Service.AnswerInWords
// decides); false when the words were not such an answer: the agent reads
// them.
func (b *Bot) yesNo(ctx context.Context, in incoming) bool {
	a, err := b.answers.AnswerInWords(ctx, in.topic(), in.user, in.replyTo, in.text)
	switch a.Outcome {
	case nod.WordsNone:
		if err != nil {
			b.log.Error("answer in words", "chat", in.chat, "err", err)
		}
		return false
	case nod.WordsNothingLeft:
		b.reply(ctx, in.topic(), in.loc.Text(formatting.NothingLeft))
		return true
	case nod.WordsUnknown:
		b.reply(ctx, in.topic(), in.loc.Text(formatting.AnswerUnknown.With(formatting.NoSuchItem{N: a.Unknown, Total: len(a.Set.Items)})))
		return true
	}
	// Decided as the person's taps would be: the set's message is
	// refreshed, then what happened is said.
	d := a.Decided
	if d.Set.ID != "" {
		b.refresh(ctx, in.loc, d.Set, d.Failed(), 0, d.Applied)
	}
	b.refreshCards(ctx, in.loc, in.chat, 0, appliedTasks(d))
	b.decidedReminders(ctx, in.loc, in.chat, in.user, d)
	if err != nil {
		b.reply(ctx, in.topic(), formatting.Message{HTML: formatting.Escape(b.explain(in.loc, err, "answer", "chat", in.chat))})
		return true
	}
	b.reply(ctx, in.topic(), in.loc.Text(formatting.Answered.With(answered(d, a.Rejected))))
	b.reportCalls(ctx, in.loc, d.Calls)
	b.offerRule(ctx, in.loc, in.topic(), d.Offer)
	return true
}

// answered is what the "answered" message counts.
func answered(d nod.Decided, rejected int) formatting.Tally {
	return formatting.Tally{Applied: len(d.Applied) + len(d.Calls), Rejected: rejected, Pending: len(d.Set.Pending())}
}

// reason says what a reply to a change set did as a rejection's reason
// (confirm.Service.Reason decides); false when it was none.
func (b *Bot) reason(ctx context.Context, in incoming) bool {
	out, err := b.answers.Reason(ctx, in.chat, in.user, in.replyTo, in.text)
	switch {
	case err != nil || out == nod.ReasonNone:
		return false
	case out == nod.ReasonTooLong:
		n := utf8.RuneCountInString(in.text)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.ReasonTooLong.With(formatting.Overlong{Len: n, Max: nod.MaxReasonLen})))
		return true
	}
	b.reply(ctx, in.topic(), in.loc.Text(formatting.ReasonNoted.With(in.text)))
	return true
}

func (b *Bot) cmdReview(ctx context.Context, in incoming) {
	b.turn(ctx, in, nod.TurnRequest{Topic: in.topic(), UserID: in.user, Review: true, Group: in.speaker != "", Lang: in.loc.Code(), Settings: in.settings})
}

func (b *Bot) cmdTrash(ctx context.Context, in incoming) {
	tasks, err := b.tasks.Trash(ctx, in.chat)
	if err != nil {
		b.log.Error("trash", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.reply(ctx, in.topic(), in.loc.Tasks().Trash(tasks, b.opts.TrashRetention))
}

func (b *Bot) onRestore(ctx context.Context, p press) string {
	applied, err := b.change.Restore(ctx, p.topic(), p.user, p.task())
	if err != nil {
		return b.explain(p.loc, err, "restore", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		receipt := p.loc.Undo().Button(p.loc.Text(formatting.Restored.With(formatting.RestoredTask{Title: applied.After.Title, Checklist: len(applied.After.Checklist)})), applied.Undo.ID)
		receipt = b.backTwin(ctx, p.loc, p.chat, applied.After.ID, applied.After.Title, receipt)
		// The message tapped said the task was in the trash: it says what
		// is true now. A /trash list of others shows the trash as it is,
		// and the receipt follows; a message about this task alone becomes
		// the receipt.
		if restores := countKind(p.keyboard, nod.ActRestore); restores > 1 {
			if tasks, err := b.tasks.Trash(ctx, p.chat); err == nil {
				if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Tasks().Trash(tasks, b.opts.TrashRetention)); err != nil {
					b.log.Warn("refresh trash list", "chat", p.chat, "err", err)
				}
			}
		} else if restores == 1 {
			if err := b.send.edit(ctx, p.chat, p.msgID, receipt); err == nil {
				return
			}
		}
		b.reply(ctx, p.topic(), receipt)
	})
	return p.loc.Notice(formatting.NoticeRestored)
}

// onAcceptReading applies nod's reading of a decision the person stated
// in words, once, for the person who stated it.
func (b *Bot) onAcceptReading(ctx context.Context, p press) string {
	a, err := b.answers.AcceptReading(ctx, p.chat, p.user, p.action.ID)
	if err != nil {
		return b.explain(p.loc, err, "reading", "chat", p.chat)
	}
	d := a.Decided
	p.then(func(ctx context.Context) {
		b.refresh(ctx, p.loc, d.Set, d.Failed(), 0, d.Applied)
		// The reading says it is decided now, and keeps no button.
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Changes().ReadingAccepted(a.Reading, d.Set)); err != nil {
			b.log.Warn("edit reading", "chat", p.chat, "err", err)
		}
		b.reportCalls(ctx, p.loc, d.Calls)
		b.offerRule(ctx, p.loc, p.topic(), d.Offer)
	})
	return formatting.PlainText(p.loc.Render(formatting.Answered.With(answered(d, a.Rejected))))
}

// closePrompt edits the message that asked for the task's title, so that
// it no longer reads as waiting; deleted is the task as it went to the
// trash, when the answer deleted it.
func (b *Bot) closePrompt(ctx context.Context, chat nod.ChatID, loc *formatting.Locale, d nod.PendingDeletion, tmpl formatting.Template[string], deleted *nod.Task) {
	if d.MessageID == 0 {
		return
	}
	if err := b.send.edit(ctx, chat, d.MessageID, loc.Tasks().DeleteClosed(tmpl, d.Title, b.twin(ctx, chat, d, deleted), deleted != nil)); err != nil {
		b.log.Warn("close deletion prompt", "chat", chat, "err", err)
	}
}

// onKeepDeletion cancels an asked deletion from its question's ✗, and
// with "Keep all" the rest of the person's line; the question is closed
// and the line moves on. A second tap finds it decided and changes
// nothing.
func (b *Bot) onKeepDeletion(ctx context.Context, p press) string {
	a, err := b.change.KeepDeletion(ctx, p.chat, p.user, p.msgID, nod.DeletionID(p.action.ID), p.action.N == nod.KeepLine)
	if err != nil {
		return b.explain(p.loc, err, "keep deletion", "chat", p.chat)
	}
	d := a.Deletion
	kept := formatting.KeptLine{Title: d.Title}
	for _, r := range a.Rest {
		kept.Rest = append(kept.Rest, r.Title)
	}
	text := p.loc.Text(formatting.DeleteKept.With(kept))
	p.then(func(ctx context.Context) {
		b.closePrompt(ctx, p.chat, p.loc, d, formatting.DeletePromptCancelled, nil)
		if len(a.Rest) > 0 {
			// The question, edited, names only its own task.
			b.reply(ctx, p.topic(), text)
		}
		b.askDeletion(ctx, p.chat, p.user, p.loc)
	})
	return formatting.PlainText(text.HTML)
}
