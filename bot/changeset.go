package bot

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// press is a button press of an allowed user.
type press struct {
	id   string // callback query id
	chat nod.ChatID
	// group is set in a group chat: what is the chat's is not one
	// member's to change
	group bool
	user  nod.UserID
	// thread is the forum topic of the pressed message, 0 outside one:
	// what the press sends goes there.
	thread   nod.ThreadID
	msgID    int
	action   nod.Action
	data     string                       // the pressed button's callback data
	keyboard *models.InlineKeyboardMarkup // of the pressed message, if known
	text     string                       // of the pressed message as Telegram shows it, if known
	loc      *formatting.Locale           // the language to answer in
	later    *[]func(context.Context)     // what runs once the press is answered
	// tap is set for an action whose decision marks the update handled
	// and records the edit's buttons in its own transaction.
	tap *nod.Tap
}

// topic is where the pressed message is, and what the press sends goes.
func (p press) topic() nod.Topic { return nod.Topic{ChatID: p.chat, Thread: p.thread} }

// The record a button names, typed once as its kind says: the callback
// data carries a plain id.
func (p press) set() nod.SetID   { return nod.SetID(p.action.ID) }
func (p press) undo() nod.UndoID { return nod.UndoID(p.action.ID) }
func (p press) rule() nod.RuleID { return nod.RuleID(p.action.ID) }
func (p press) task() nod.TaskID { return nod.TaskID(p.action.ID) }
func (p press) item() nod.ItemID { return nod.ItemID(p.action.ID) }

// then runs fn once the press has been answered: edits and new messages
// never hold up the answer, so a slow or rate-limited edit cannot leave
// the button spinning (Telegram gives up on an unanswered press).
func (p press) then(fn func(ctx context.Context)) { *p.later = append(*p.later, fn) }

// onCallback handles a press. tap is set when the decision's transaction
// is to mark the update handled: whatever answers the press without that
// decision marks it first, and a redelivery is answered nothing.
func (b *Bot) onCallback(ctx context.Context, q *models.CallbackQuery, tap *nod.Tap) {
	var (
		chat   nod.ChatID
		thread nod.ThreadID // of a message Telegram no longer shows, unknown: the chat
		msgID  int
		kb     *models.InlineKeyboardMarkup
		text   string
	)
	switch {
	case q.Message.Message != nil:
		chat, msgID, kb = nod.ChatID(q.Message.Message.Chat.ID), q.Message.Message.ID, q.Message.Message.ReplyMarkup
		text = q.Message.Message.Text
		thread = messageTopic(q.Message.Message).Thread
	case q.Message.InaccessibleMessage != nil:
		chat, msgID = nod.ChatID(q.Message.InaccessibleMessage.Chat.ID), q.Message.InaccessibleMessage.MessageID
	}
	// answer answers the press, once: an update its decision did not mark
	// is marked first, and a redelivery is answered nothing.
	answer := func(text string) bool {
		if tap != nil && !tap.Marked {
			first, err := b.firstDelivery(ctx, tap.Update)
			if err != nil {
				text, _ := notice(formatting.For(q.From.LanguageCode), err, nil)
				b.send.answer(ctx, q.ID, text)
				return false
			}
			if !first {
				return false
			}
			tap.Marked = true
		}
		b.send.answer(ctx, q.ID, text)
		return true
	}
	if !b.allowed[nod.UserID(q.From.ID)] {
		b.log.Info("stranger's button refused", "chat", chat, "user", nod.UserID(q.From.ID))
		b.send.answer(ctx, q.ID, strangerNotice(q.From.LanguageCode, nod.UserID(q.From.ID)))
		return
	}
	group := chat.Group() // of a message Telegram no longer shows: by its id
	if m := q.Message.Message; m != nil {
		group = m.Chat.Type != models.ChatTypePrivate
	}
	if group {
		b.remember(ctx, chat, q.From)
	}
	// The chat's settings and the press's button check, in one read.
	check := b.pressed(ctx, chat, msgID, q.Data, kb)
	loc, _ := b.localeOf(ctx, chat, q.From.LanguageCode, check.settings, check.err)
	a, err := DecodeAction(q.Data)
	if err != nil || chat == 0 {
		b.log.Warn("invalid callback data", "chat", chat, "user", nod.UserID(q.From.ID))
		text, _ := notice(loc, nod.ErrInvalid, nil)
		answer(text)
		return
	}
	switch {
	case check.err != nil:
		b.log.Error("button check", "chat", chat, "err", check.err)
		answer(loc.Notice(formatting.NoticeFailed))
		return
	case !check.recorded && q.Message.Message == nil:
		// An old message: its buttons are no longer recorded (pruned,
		// or sent before the record was kept) and Telegram no longer
		// shows it to the bot.
		b.log.Info("button of an old message", "chat", chat, "user", nod.UserID(q.From.ID), "message", msgID)
		answer(loc.Notice(formatting.NoticeButtonExpired))
		return
	case !check.sent:
		// Valid data pressed on another message (another person's
		// receipt, say): whatever it names, that message is not its own.
		b.log.Warn("button pressed on a message it was not sent with", "chat", chat, "user", nod.UserID(q.From.ID), "message", msgID)
		answer(loc.Notice(formatting.NoticeNotHere))
		return
	}
	var later []func(context.Context)
	p := press{id: q.ID, chat: chat, group: group, thread: thread, user: nod.UserID(q.From.ID), msgID: msgID, action: a, data: q.Data, keyboard: kb, text: text, loc: loc, later: &later, tap: tap}
	actx := ctx
	if tap != nil {
		tap.Message, tap.Buttons = msgID, func(d nod.Decided) []string { return setButtons(loc, d) }
		actx = nod.WithTap(ctx, tap)
	}
	if !answer(actions[a.Kind](b, actx, p)) {
		return
	}
	for _, fn := range later {
		fn(ctx)
	}
	b.refreshOwed(ctx, chat, loc)
}

// setButtons is the callback data of the buttons the set's message shows
// once d is drawn, and perhaps more: every applied item's undo counts as
// live (one that expired since was shown before).
func setButtons(loc *formatting.Locale, d nod.Decided) []string {
	v := formatting.ChangeSetView{Set: d.Set, Failed: d.Failed(), Undoable: map[nod.UndoID]bool{}}
	for _, it := range d.Set.Items {
		if it.UndoID != "" {
			v.Undoable[it.UndoID] = true
		}
	}
	kb, err := keyboard(formatting.Message{Keyboard: loc.Changes().ChangeSetKeyboard(v)})
	if err != nil {
		return nil
	}
	return callbackData(kb)
}

// buttonCheck is what a press found of its chat and its button: the
// chat's settings, whether its data was pressed on a message it was sent
// with (or edited into), and whether nod has a record of the message's
// buttons; err is the read's failure.
type buttonCheck struct {
	settings       nod.ChatSettings
	sent, recorded bool
	err            error
}

// pressed reads the chat's settings and checks data pressed on message
// msgID, in one read. On a message nod has no record of the buttons of
// (sent before it kept one, pruned, not recorded yet, or whose record
// failed) the data must be among the buttons Telegram reports the
// message with.
func (b *Bot) pressed(ctx context.Context, chat nod.ChatID, msgID int, data string, kb *models.InlineKeyboardMarkup) buttonCheck {
	var c buttonCheck
	c.settings, c.sent, c.recorded, c.err = b.chats.PressSettings(ctx, chat, msgID, data)
	if c.err == nil && !c.recorded {
		c.sent = kb != nil && slices.Contains(callbackData(kb), data)
	}
	return c
}

// bindButtons records which callback data message id carries; a failure
// leaves its buttons checked against the message as Telegram reports it.
func (b *Bot) bindButtons(ctx context.Context, chat nod.ChatID, id int, data []string) {
	if err := b.buttons.BindButtons(ctx, chat, id, data); err != nil {
		b.log.Warn("record buttons", "chat", chat, "message", id, "err", err)
	}
}

// withoutButton returns kb without the button whose data is data.
// noButtons is a keyboard with none: an edit to it takes a message's
// buttons away.
func noButtons() *models.InlineKeyboardMarkup {
	return &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{}}
}

func withoutButton(kb *models.InlineKeyboardMarkup, data string) *models.InlineKeyboardMarkup {
	out := noButtons()
	for _, row := range kb.InlineKeyboard {
		var r []models.InlineKeyboardButton
		for _, b := range row {
			if b.CallbackData != data {
				r = append(r, b)
			}
		}
		if len(r) > 0 {
			out.InlineKeyboard = append(out.InlineKeyboard, r)
		}
	}
	return out
}

// showChangeSet sends a new change set to its topic and remembers its
// message.
func (b *Bot) showChangeSet(ctx context.Context, loc *formatting.Locale, set nod.ChangeSet) {
	id, err := b.send.send(ctx, set.Topic, loc.Changes().ChangeSet(b.view(ctx, set, 0, nil)), 0)
	if err != nil {
		b.log.Error("send change set", "chat", set.ChatID, "set", set.ID, "err", err)
		return
	}
	if err := b.messages.SetMessageID(ctx, set.ID, id); err != nil {
		b.log.Error("remember change set message", "set", set.ID, "err", err)
		return
	}
	b.delivered(ctx, set.ChatID, nod.OwedSet, string(set.ID))
	// A decision or an undo made while the message was on its way found
	// no message to edit (redraw): it is drawn again as the set is now.
	if now, err := b.sets.ChangeSet(ctx, set.ChatID, set.ID); err == nil && !sameDecisions(set, now) {
		b.refresh(ctx, loc, now, 0, id, nil)
	}
}

// view gathers what the change-set message shows beside the set itself.
// Changes just applied (by item number) bring their task and undo entry,
// which then need no lookup: a tap's refresh reads less.
func (b *Bot) view(ctx context.Context, set nod.ChangeSet, failed int, applied map[int]nod.Applied) formatting.ChangeSetView {
	v := formatting.ChangeSetView{Set: set, Titles: map[nod.TaskID]string{}, Trashed: map[nod.TaskID]bool{}, Undoable: map[nod.UndoID]bool{}, Undone: map[nod.UndoID]bool{}, Failed: failed,
		KeepDays: int(b.opts.ChangeSetTTL / (24 * time.Hour))}
	if set.UserID != 0 {
		v.Who = b.nameOf(ctx, set.ChatID, set.UserID)
	}
	var trash map[nod.TaskID]string // read once, if an item's task is not found
	trashed := func(id nod.TaskID) string {
		if trash == nil {
			trash = map[nod.TaskID]string{}
			if ts, err := b.tasks.Trash(ctx, set.ChatID); err == nil {
				for _, t := range ts {
					trash[t.ID] = t.Title
				}
			}
		}
		return trash[id]
	}
	for _, n := range slices.Sorted(maps.Keys(applied)) { // in order: the last change of a task has its title now
		a := applied[n]
		v.Titles[a.After.ID] = a.After.Title
		v.Undoable[a.Undo.ID] = b.now().Before(a.Undo.ExpiresAt)
	}
	for _, it := range set.Items {
		if it.TaskID != "" {
			if _, ok := v.Titles[it.TaskID]; !ok {
				if t, err := b.tasks.Task(ctx, set.ChatID, it.TaskID); err == nil {
					v.Titles[it.TaskID] = t.Title
				} else {
					v.Titles[it.TaskID] = trashed(it.TaskID) // "" if gone for good
					v.Trashed[it.TaskID] = v.Titles[it.TaskID] != ""
				}
			}
		}
		if _, known := v.Undoable[it.UndoID]; it.UndoID != "" && !known {
			u, err := b.undos.UndoEntry(ctx, set.ChatID, it.UndoID)
			v.Undoable[it.UndoID] = err == nil && u.UndoneAt == nil && b.now().Before(u.ExpiresAt)
			v.Undone[it.UndoID] = err == nil && u.UndoneNow // a Redo puts it back
		}
	}
	return v
}

// refresh edits the set's message to show it as it is now. msgID is the
// message a button was pressed on, which is the set's message even when a
// tap beat the bot to storing its id; 0 uses the stored id.
//
// Taps on one set run at once, in this process and on other replicas, and
// their edits reach Telegram in any order. So once an edit has landed the
// refresh is marked delivered only if the set is still decided as drawn
// (one statement); if not, the set is read again and drawn again: an edit
// that lands after a newer one is always followed by another, and the
// message ends showing every decision. (Stopping after a fixed number of
// redraws would break that: the decision seen last might have had its own
// edit land first.) applied and failed come with the caller's snapshot
// and count only for it.
func (b *Bot) refresh(ctx context.Context, loc *formatting.Locale, set nod.ChangeSet, failed, msgID int, applied map[int]nod.Applied) {
	b.redraw(ctx, loc, set, failed, msgID, applied, false)
}

// redraw is refresh; bound says the decision that drew set recorded the
// buttons its first edit shows (nod.Tap).
func (b *Bot) redraw(ctx context.Context, loc *formatting.Locale, set nod.ChangeSet, failed, msgID int, applied map[int]nod.Applied, bound bool) {
	if msgID == 0 {
		msgID = set.MessageID
	}
	if msgID == 0 {
		// Not shown yet: the message, once sent, shows the set as it is.
		b.delivered(ctx, set.ChatID, nod.OwedRefresh, string(set.ID))
		return
	}
	// Each redraw needs a decision that came in since the last: a set has
	// that many only so often, so this ends; the bound is a guard.
	for range 2*len(set.Items) + 2 {
		if err := b.send.editBound(ctx, set.ChatID, msgID, loc.Changes().ChangeSet(b.view(ctx, set, failed, applied)), bound); err != nil {
			b.log.Warn("refresh change set", "set", set.ID, "err", err)
			return
		}
		shown, err := b.outbox.RefreshShown(ctx, set)
		if err != nil {
			b.log.Warn("refresh change set", "set", set.ID, "err", err)
		}
		if shown {
			return
		}
		// Decided meanwhile, or marked delivered by someone else already.
		now, err := b.sets.ChangeSet(ctx, set.ChatID, set.ID)
		if err != nil {
			b.log.Warn("refresh change set", "set", set.ID, "err", err)
			break
		}
		if sameDecisions(set, now) {
			break
		}
		set, failed, applied, bound = now, 0, nil, false
	}
	b.delivered(ctx, set.ChatID, nod.OwedRefresh, string(set.ID))
}

// sameDecisions reports whether two reads of a set agree on its status and
// on every item's status, note and undo entry.
func sameDecisions(a, b nod.ChangeSet) bool {
	return a.Status == b.Status && a.Warned == b.Warned && slices.EqualFunc(a.Items, b.Items, func(x, y nod.ChangeItem) bool {
		return x.Status == y.Status && x.Note.Equal(y.Note) && x.UndoID == y.UndoID
	})
}

// appliedTasks are the tasks d's confirmations changed, in the order of
// their items.
func appliedTasks(d nod.Decided) []nod.TaskID {
	out := make([]nod.TaskID, 0, len(d.Applied))
	for _, n := range slices.Sorted(maps.Keys(d.Applied)) {
		out = append(out, d.Applied[n].After.ID)
	}
	return out
}

// decided answers a decision on a change set and refreshes its message.
func (b *Bot) decided(ctx context.Context, p press, d nod.Decided, err error, ok string) string {
	if errors.Is(err, nod.ErrHandled) {
		return "" // a redelivery: onCallback answers nothing
	}
	if d.Set.ID != "" && d.Set.ChatID == p.chat {
		bound := err == nil && p.tap != nil && p.tap.Marked
		p.then(func(ctx context.Context) { b.redraw(ctx, p.loc, d.Set, d.Failed(), p.msgID, d.Applied, bound) })
	}
	if len(d.Applied) > 0 {
		p.then(func(ctx context.Context) {
			b.decidedReminders(ctx, p.loc, p.chat, p.user, d)
			if d.Cards != nil { // read with the decision
				b.redrawCards(ctx, p.loc, p.chat, appliedTasks(d), d.Cards)
				return
			}
			b.refreshCards(ctx, p.loc, p.chat, 0, appliedTasks(d))
		})
	}
	if len(d.Calls) > 0 {
		// Sent once the press is answered: a slow service never leaves
		// the button spinning.
		p.then(func(ctx context.Context) {
			b.decide.RunCalls(ctx, &d)
			b.reportCalls(ctx, p.loc, d.Calls)
		})
	}
	if errors.Is(err, nod.ErrDecided) && p.action.N > 0 {
		return decidedNotice(p.loc, d.Set, p.action.N)
	}
	if err != nil {
		return b.explain(p.loc, err, "decide", "chat", p.chat, "set", p.action.ID)
	}
	p.then(func(ctx context.Context) { b.offerRule(ctx, p.loc, p.topic(), d.Offer) })
	if d.Failed() != 0 {
		return p.loc.Notice(formatting.NoticeStoppedAt.With(d.Failed()))
	}
	if d.Stale() != 0 {
		it, _ := d.Set.Item(d.Stale())
		return p.loc.Notice(formatting.NoticeNotApplied.With(p.loc.Changes().Remark(it.Note)))
	}
	if p.action.N > 0 {
		if it, found := d.Set.Item(p.action.N); found && (it.Status == nod.ItemStale || it.Status == nod.ItemFailed) {
			return p.loc.Notice(formatting.NoticeNotApplied.With(p.loc.Changes().Remark(it.Note)))
		}
	}
	return ok
}

func (b *Bot) onConfirm(ctx context.Context, p press) string {
	d, err := b.decide.Confirm(ctx, p.chat, p.user, p.set(), p.action.N)
	return b.decided(ctx, p, d, err, p.loc.Notice(formatting.NoticeAppliedItem.With(p.action.N)))
}

func (b *Bot) onApplyAnyway(ctx context.Context, p press) string {
	d, err := b.mend.ApplyAnyway(ctx, p.chat, p.user, p.set(), p.action.N)
	return b.decided(ctx, p, d, err, p.loc.Notice(formatting.NoticeAppliedItem.With(p.action.N)))
}

func (b *Bot) onSkip(ctx context.Context, p press) string {
	d, err := b.mend.Skip(ctx, p.chat, p.user, p.set(), p.action.N)
	return b.decided(ctx, p, d, err, p.loc.Notice(formatting.NoticeSkippedItem.With(p.action.N)))
}

func (b *Bot) onRetry(ctx context.Context, p press) string {
	d, err := b.mend.Retry(ctx, p.chat, p.user, p.set(), p.action.N)
	return b.decided(ctx, p, d, err, p.loc.Notice(formatting.NoticeAppliedCount.With(len(d.Applied)+len(d.Calls))))
}

func (b *Bot) onSkipRest(ctx context.Context, p press) string { return b.onConfirmAll(ctx, p) }

func (b *Bot) onAbort(ctx context.Context, p press) string {
	set, err := b.sets.ChangeSet(ctx, p.chat, p.set())
	if err != nil {
		text, _ := notice(p.loc, err, nil)
		return text
	}
	p.then(func(ctx context.Context) { b.refresh(ctx, p.loc, set, 0, p.msgID, nil) })
	return p.loc.Notice(formatting.NoticeAborted)
}

func (b *Bot) onReject(ctx context.Context, p press) string {
	d, err := b.decide.Reject(ctx, p.chat, p.user, p.set(), p.action.N)
	return b.decided(ctx, p, d, err, p.loc.Notice(formatting.NoticeRejectedItem.With(p.action.N)))
}

func (b *Bot) onConfirmAll(ctx context.Context, p press) string {
	d, err := b.decide.ConfirmAll(ctx, p.chat, p.user, p.set())
	if errors.Is(err, nod.ErrDecided) {
		p.then(func(ctx context.Context) { b.refresh(ctx, p.loc, d.Set, 0, p.msgID, nil) })
		return p.loc.Notice(formatting.NoticeNothingLeft)
	}
	return b.decided(ctx, p, d, err, p.loc.Notice(formatting.NoticeAppliedCount.With(len(d.Applied)+len(d.Calls))))
}

func (b *Bot) onRejectAll(ctx context.Context, p press) string {
	d, err := b.decide.RejectAll(ctx, p.chat, p.user, p.set())
	if errors.Is(err, nod.ErrDecided) {
		p.then(func(ctx context.Context) { b.refresh(ctx, p.loc, d.Set, 0, p.msgID, nil) })
		return p.loc.Notice(formatting.NoticeNothingLeft)
	}
	return b.decided(ctx, p, d, err, p.loc.Notice(formatting.NoticeRejectedAll))
}

func (b *Bot) onRepropose(ctx context.Context, p press) string {
	fresh, dropped, err := b.mend.Repropose(ctx, p.chat, p.user, p.set())
	if errors.Is(err, nod.ErrDecided) {
		return p.loc.Notice(formatting.NoticeReproposedAlready)
	}
	if err != nil {
		return b.explain(p.loc, err, "re-propose", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		if old, err := b.sets.ChangeSet(ctx, p.chat, p.set()); err == nil {
			b.refresh(ctx, p.loc, old, 0, p.msgID, nil)
		}
		if fresh != nil {
			b.showChangeSet(ctx, p.loc, *fresh)
		}
	})
	if fresh == nil {
		return p.loc.Notice(formatting.NoticeReproposeNone)
	}
	return p.loc.Notice(formatting.NoticeReproposed.With(formatting.Reproposal{Count: len(fresh.Items), Dropped: dropped}))
}
