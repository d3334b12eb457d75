package bot

import (
	"context"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/formatting"
)

// The order in which a text message is read (docs/design.md §3.4, first match wins):
// the answer to a waiting typed confirmation; a command; yes/no to a change
// set; a rejection's reason; anything else goes to the agent.

// typedConfirmation answers the person's asked deletion, if they have
// one: the task's title deletes it; a near miss (a typo or two) asks
// again; anything else cancels it, and unless it was a bare yes or no, the
// message is then read as any other (consumed is false), so that
// "actually keep it, but make it P3" is not lost. moveOn is set when the
// question ended (answered, cancelled or expired): the person's next
// deletion is asked once this message has been handled.
func (b *Bot) typedConfirmation(ctx context.Context, in incoming) (consumed, moveOn bool) {
	if in.settings != nil && !in.settings.DeletionAsked {
		return false, false // no question of theirs waits: nothing to look for
	}
	d, ok, err := b.deletions.WaitingDeletion(ctx, in.chat, in.user)
	if err != nil {
		b.log.Error("typed confirmation", "chat", in.chat, "err", err)
		return false, false
	}
	if !ok || d.Thread != in.thread {
		return false, false // none asked, or asked in another topic: answered there
	}
	if !b.now().Before(d.ExpiresAt) {
		return false, true // expired: the message is an ordinary one
	}
	typed := answer.ReadTitle(in.text, d.Title, in.spoken)
	if typed == answer.NearTitle {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.DeleteAgain.With(d.Title)))
		return true, false // the question stays open
	}
	ended, err := b.deletions.EndDeletion(ctx, in.chat, d.ID)
	if err != nil {
		b.log.Error("typed confirmation", "chat", in.chat, "err", err)
	}
	if !ended {
		return false, false // ended meanwhile by another delivery of the answer
	}
	if typed != answer.SameTitle {
		b.closePrompt(ctx, in.chat, in.loc, d, formatting.DeletePromptCancelled)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.DeleteCancelled.With(d.Title)))
		return b.reader.Read(in.text).Bare(), true // a bare "yes" or "no" ends there
	}
	b.closePrompt(ctx, in.chat, in.loc, d, formatting.DeletePromptDone)
	applied, err := b.change.Delete(ctx, in.chat, in.user, d)
	if err != nil {
		b.reply(ctx, in.topic(), formatting.Message{HTML: formatting.Escape(b.explain(in.loc, err, "delete", "chat", in.chat))})
		return true, true
	}
	b.reply(ctx, in.topic(), in.loc.Undo().Button(in.loc.Text(formatting.Deleted.With(d.Title)), applied.Undo.ID))
	return true, true
}

// askDeletion moves the person's line of deletions on: a question whose
// time ran out says so, and the next deletion in line is asked.
func (b *Bot) askDeletion(ctx context.Context, chat nod.ChatID, user nod.UserID, loc *formatting.Locale) {
	step, err := b.deletions.AskDeletion(ctx, chat, user)
	if err != nil {
		b.log.Error("ask deletion", "chat", chat, "err", err)
		return
	}
	for _, d := range step.Expired {
		b.closePrompt(ctx, chat, loc, d, formatting.DeletePromptExpired)
	}
	if step.Ask != nil {
		b.showDeletion(ctx, chat, loc, *step.Ask)
	}
}

// showDeletion sends an asked deletion's question to its topic and
// records its message; until then the question is owed, and the person's
// words are not its answer.
func (b *Bot) showDeletion(ctx context.Context, chat nod.ChatID, loc *formatting.Locale, d nod.PendingDeletion) {
	id := b.reply(ctx, d.Topic, loc.Tasks().DeleteAsk(d))
	if id == 0 {
		return
	}
	if err := b.messages.SetDeletionMessage(ctx, chat, d.ID, id); err != nil {
		b.log.Warn("remember deletion prompt", "chat", chat, "err", err)
		return
	}
	b.delivered(ctx, chat, nod.OwedDeletion, d.ID)
}

// answerTarget is the set a yes/no or a reason is about: the replied-to
// set, else the newest open set the person may decide.
func (b *Bot) answerTarget(ctx context.Context, in incoming) (nod.ChangeSet, bool) {
	if in.replyTo != 0 {
		set, err := b.sets.ChangeSetByMessage(ctx, in.chat, in.replyTo)
		return set, err == nil
	}
	sets, err := b.sets.OpenChangeSets(ctx, in.topic())
	if err != nil {
		b.log.Error("open change sets", "chat", in.chat, "err", err)
		return nod.ChangeSet{}, false
	}
	for _, s := range sets {
		if s.UserID == 0 || s.UserID == in.user {
			return s, true
		}
	}
	return nod.ChangeSet{}, false
}

// yesNo decides a set's pending items from a text answer nod read whole:
// all of them ("yes", "no"), or those it names ("yes to 4 and 6, no to
// 5", "ja zu 1 und 3, 2 nicht", "all but 2"); items it does not name stay
// pending. An answer with a word nod cannot place is not one: the agent
// reads it.
func (b *Bot) yesNo(ctx context.Context, in incoming) bool {
	r := b.reader.Read(in.text)
	if !r.Whole {
		return false
	}
	set, found := b.answerTarget(ctx, in)
	if !found || !set.Status.Open() {
		if found {
			b.reply(ctx, in.topic(), in.loc.Text(formatting.NothingLeft))
			return true
		}
		return false
	}
	yes, no, unknown := r.On(set)
	if unknown != 0 {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.AnswerUnknown.With(formatting.NoSuchItem{N: unknown, Total: len(set.Items)})))
		return true
	}
	b.decideInWords(ctx, in, set, yes, no)
	return true
}

// decideInWords decides items as the person's taps would (Answer: yes
// confirmed in one transaction, in order; no rejected), then refreshes the
// set's message and says what happened.
func (b *Bot) decideInWords(ctx context.Context, in incoming, set nod.ChangeSet, yes, no []int) {
	d, rejected, err := b.decide.Answer(ctx, in.chat, in.user, nod.Reading{SetID: set.ID, Confirm: yes, Reject: no, Words: in.text})
	if d.Set.ID != "" {
		b.refresh(ctx, in.loc, d.Set, d.Failed(), 0, d.Applied)
	}
	if err != nil {
		b.reply(ctx, in.topic(), formatting.Message{HTML: formatting.Escape(b.explain(in.loc, err, "answer", "chat", in.chat))})
		return
	}
	b.reply(ctx, in.topic(), in.loc.Text(formatting.Answered.With(answered(d, rejected))))
	b.offerRule(ctx, in.loc, in.topic(), d.Offer)
}

// answered is what the "answered" message counts.
func answered(d nod.Decided, rejected int) formatting.Tally {
	return formatting.Tally{Applied: len(d.Applied), Rejected: rejected, Pending: len(d.Set.Pending())}
}

// reason stores a reply to a change set as the reason of its latest
// rejection, if that has none yet.
func (b *Bot) reason(ctx context.Context, in incoming) bool {
	if in.replyTo == 0 {
		return false
	}
	set, err := b.sets.ChangeSetByMessage(ctx, in.chat, in.replyTo)
	if err != nil {
		return false
	}
	d, err := b.sets.LatestRejection(ctx, set.ID)
	if err != nil || d.Reason != "" || d.UserID != in.user { // only who rejected it says why
		return false
	}
	for _, s := range anyNumber.FindAllString(in.text, -1) {
		if it, ok := set.Item(atoi(s)); ok && it.Status == nod.ItemPending {
			return false // it names a pending item: an answer or an edit, for the agent
		}
	}
	if n := utf8.RuneCountInString(in.text); n > nod.MaxReasonLen {
		// Not cut: a cut reason may say the opposite. The rejection
		// still waits for one.
		b.reply(ctx, in.topic(), in.loc.Text(formatting.ReasonTooLong.With(formatting.Overlong{Len: n, Max: nod.MaxReasonLen})))
		return true
	}
	if err := b.answers.SetReason(ctx, d.ID, in.text); err != nil {
		return false
	}
	b.reply(ctx, in.topic(), in.loc.Text(formatting.ReasonNoted.With(in.text)))
	return true
}

var anyNumber = regexp.MustCompile(`\d{1,3}`)

var itemNumber = regexp.MustCompile(`(?i)(?:\bitem\s*|#)(\d+)\b|^\s*(\d+)[.:)]\s`)

// revision is the pending item a reply to a change-set message revises:
// the item its text names ("item 2", "#2", "2. …"), or the only pending
// one. nil when the text is not such a reply.
func (b *Bot) revision(ctx context.Context, in incoming) *nod.ItemRef {
	if in.replyTo == 0 {
		return nil
	}
	set, err := b.sets.ChangeSetByMessage(ctx, in.chat, in.replyTo)
	if err != nil || !set.Status.Open() || !set.DecidableBy(in.user) {
		return nil
	}
	pending := set.Pending()
	if m := itemNumber.FindStringSubmatch(in.text); m != nil {
		n, _ := strconv.Atoi(m[1] + m[2])
		if it, ok := set.Item(n); ok && it.Status == nod.ItemPending {
			return &nod.ItemRef{SetID: set.ID, N: n}
		}
	}
	if len(pending) == 1 {
		return &nod.ItemRef{SetID: set.ID, N: pending[0]}
	}
	return nil
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
	b.reply(ctx, in.topic(), in.loc.Tasks().Trash(tasks))
}

func (b *Bot) onRestore(ctx context.Context, p press) string {
	applied, err := b.change.Restore(ctx, p.topic(), p.user, p.task())
	if err != nil {
		return b.explain(p.loc, err, "restore", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		receipt := p.loc.Undo().Button(p.loc.Text(formatting.Restored.With(formatting.RestoredTask{Title: applied.After.Title, Checklist: len(applied.After.Checklist)})), applied.Undo.ID)
		// The message tapped said the task was in the trash: it says what
		// is true now. A /trash list of others shows the trash as it is,
		// and the receipt follows; a message about this task alone becomes
		// the receipt.
		if restores := countKind(p.keyboard, nod.ActRestore); restores > 1 {
			if tasks, err := b.tasks.Trash(ctx, p.chat); err == nil {
				if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Tasks().Trash(tasks)); err != nil {
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
	r, err := b.answers.TakeReading(ctx, p.chat, p.action.ID, p.user)
	if err != nil {
		return b.explain(p.loc, err, "reading", "chat", p.chat)
	}
	d, rejected, err := b.decide.Answer(ctx, p.chat, p.user, r)
	if err != nil {
		return b.explain(p.loc, err, "reading", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		b.refresh(ctx, p.loc, d.Set, d.Failed(), 0, d.Applied)
		// The reading says it is decided now, and keeps no button.
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Changes().ReadingAccepted(r, d.Set)); err != nil {
			b.log.Warn("edit reading", "chat", p.chat, "err", err)
		}
		b.offerRule(ctx, p.loc, p.topic(), d.Offer)
	})
	return formatting.PlainText(p.loc.Render(formatting.Answered.With(answered(d, rejected))))
}

// closePrompt edits the message that asked for the task's title, so that
// it no longer reads as waiting.
func (b *Bot) closePrompt(ctx context.Context, chat nod.ChatID, loc *formatting.Locale, d nod.PendingDeletion, tmpl formatting.Template[string]) {
	if d.MessageID == 0 {
		return
	}
	if err := b.send.edit(ctx, chat, d.MessageID, loc.Text(tmpl.With(d.Title))); err != nil {
		b.log.Warn("close deletion prompt", "chat", chat, "err", err)
	}
}
