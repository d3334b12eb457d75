package bot

import (
	"context"
	"errors"
	"slices"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

func (b *Bot) onUndo(ctx context.Context, p press) string { return b.undo(ctx, p, false) }

func (b *Bot) onUndoForce(ctx context.Context, p press) string { return b.undo(ctx, p, true) }

// offerLeft is p's keyboard without the button pressed and, when that
// answered an undo's question (Undo anyway, Apply anyway), without the
// question's other answer, Leave as is.
func offerLeft(p press) *models.InlineKeyboardMarkup {
	kb := withoutButton(p.keyboard, p.data)
	if leave, err := EncodeAction(nod.Action{Kind: nod.ActUndoLeave, ID: p.action.ID}); err == nil {
		kb = withoutButton(kb, leave)
	}
	return kb
}

// onUndoLeave closes the question an undo asked (Undo anyway, Apply
// anyway) without changing anything: only its person may, as only they
// may undo.
func (b *Bot) onUndoLeave(ctx context.Context, p press) string {
	u, err := b.undos.UndoEntry(ctx, p.chat, p.undo())
	if err == nil && u.UserID != p.user {
		err = nod.ErrForbidden
	}
	if err != nil {
		return b.explainAs(p.loc, err, undoNotices, "leave undo", "chat", p.chat)
	}
	if p.keyboard != nil {
		// The question says what the person chose, where it asked.
		p.then(func(ctx context.Context) {
			if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Undo().Left(u)); err != nil {
				b.log.Warn("mark undo left", "chat", p.chat, "err", err)
			}
		})
	}
	return p.loc.Notice(formatting.NoticeUndoLeft)
}

func (b *Bot) undo(ctx context.Context, p press, force bool) string {
	u, err := b.change.Undo(ctx, p.chat, p.user, p.undo(), force)
	if errors.Is(err, nod.ErrStale) {
		p.then(func(ctx context.Context) { b.offerUndoAnyway(ctx, p.loc, p.topic(), p.undo(), err) })
	}
	if errors.Is(err, nod.ErrExpired) && p.keyboard != nil {
		// Too late for good: the button goes, so that it is not tried again.
		p.then(func(ctx context.Context) {
			b.send.editKeyboard(ctx, p.chat, p.msgID, offerLeft(p))
		})
	}
	if err != nil {
		return b.explainAs(p.loc, err, undoNotices, "undo", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		shown := b.tapsBack(ctx, p.loc, p.chat, p.undo(), u)
		switch set, err := b.sets.ChangeSetByUndo(ctx, p.chat, p.undo()); {
		case isCard(p.keyboard):
			// A card's tap taken back: the card shows the task as it is.
			b.cardNow(ctx, p.loc, p.chat, p.msgID, u.Redo.TaskID)
		case force && u.Redone && p.keyboard != nil:
			// Applied anyway from the offer (Stale): the offer keeps its
			// question and loses its button, and the Undone message
			// whose Redo asked reads as redone.
			b.send.editKeyboard(ctx, p.chat, p.msgID, offerLeft(p))
			b.markRedoneAt(ctx, p.loc, p.chat, p.undo(), p.msgID)
		case (err != nil || set.MessageID != p.msgID) && p.keyboard != nil && !slices.Contains(shown, p.msgID):
			// Not the set's own message (which its refresh redraws): a
			// receipt, or the message of an Undo whose Redo this is.
			b.markUndone(ctx, p, u)
		}
		b.redrawReceiptOf(ctx, p.loc, p.chat, u, p.msgID)
		b.undone(ctx, p.loc, p.topic(), p.undo(), u, len(shown) > 0)
	})
	if u.Redone {
		return p.loc.Notice(formatting.NoticeRedone)
	}
	return p.loc.Notice(formatting.NoticeUndone)
}

// markUndone edits the message that reported a change the person just
// undid, so that it no longer reads as in force: a receipt of that one
// change says it was undone; one of several is redrawn with it struck
// out, or, where it cannot be, loses that change's Undo.
func (b *Bot) markUndone(ctx context.Context, p press, u nod.Undone) {
	if b.bulkUndoneOne(ctx, p) {
		return
	}
	kb := offerLeft(p)
	if !u.Redone && b.redrawReceipts(ctx, p) {
		return
	}
	if countUndos(p.keyboard) > 1 {
		b.send.editKeyboard(ctx, p.chat, p.msgID, kb)
		return
	}
	var m formatting.Message
	if u.Redone {
		// The Undone message whose Redo this was: it says what it said,
		// struck, and that the change is back.
		e, err := b.undos.UndoEntry(ctx, p.chat, p.undo())
		if err != nil {
			b.send.editKeyboard(ctx, p.chat, p.msgID, kb)
			return
		}
		m = p.loc.Undo().UndoneRedone(e)
	} else {
		m = p.loc.Undo().ReceiptUndone(u.Redo)
	}
	m.Keyboard = append(m.Keyboard, formatButtons(kb)...) // its other buttons (a rule's Stop)
	if err := b.send.edit(ctx, p.chat, p.msgID, m); err != nil {
		b.log.Warn("mark undone", "chat", p.chat, "err", err)
	}
}

// markRedoneAt edits the Undone message that carries the Redo of entry
// id, other than message pressed, as markUndone does once its own Redo
// was tapped: what it said, struck, and that the change is back.
func (b *Bot) markRedoneAt(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, id nod.UndoID, pressed int) {
	data, err := EncodeAction(nod.Action{Kind: nod.ActUndo, ID: string(id)})
	if err != nil {
		return
	}
	msgs, err := b.buttons.ButtonMessages(ctx, chat, data)
	if err != nil {
		b.log.Warn("the Undone message of a redo", "chat", chat, "err", err)
		return
	}
	e, err := b.undos.UndoEntry(ctx, chat, id)
	if err != nil {
		return
	}
	for _, msg := range msgs {
		if msg == pressed {
			continue
		}
		if err := b.send.edit(ctx, chat, msg, loc.Undo().UndoneRedone(e)); err != nil {
			b.log.Warn("mark redone", "chat", chat, "err", err)
		}
		return
	}
}

// formatButtons is a keyboard as the formatting package draws one,
// leaving out a button whose data nod cannot read.
func formatButtons(kb *models.InlineKeyboardMarkup) [][]formatting.Button {
	var out [][]formatting.Button
	for _, row := range kb.InlineKeyboard {
		var keep []formatting.Button
		for _, btn := range row {
			if a, err := DecodeAction(btn.CallbackData); err == nil {
				keep = append(keep, formatting.Button{Text: btn.Text, Action: a})
			}
		}
		if len(keep) > 0 {
			out = append(out, keep)
		}
	}
	return out
}

// redrawReceipts redraws the receipt of two or three changes p was
// pressed on as those changes stand (keptReceipt). It reports false,
// changing nothing, when the message is not such a receipt or a
// change's receipt or entry cannot be read.
func (b *Bot) redrawReceipts(ctx context.Context, p press) bool {
	r := b.receiptOn(ctx, p.chat, p.msgID)
	if len(r.ids) == 0 && p.keyboard != nil {
		// Pressed before its buttons were recorded (a receipt sent while
		// the model writes on): Telegram's copy of them says the same.
		r = receiptOf(callbackData(p.keyboard))
	}
	return !r.short && !r.combined && len(r.ids) > 1 && b.redrawReceipt(ctx, p.loc, p.chat, p.msgID, r.ids)
}

// receiptShown is what a receipt message reported, as the records of
// the buttons it was sent with say: its changes in its order (each
// change's numbered Undo, shown or bound, formatting.Changes.Receipts),
// and whether it is a short receipt (Undo one…) or one request's
// combined receipt (one Undo all, and no Undo one…).
type receiptShown struct {
	ids             []nod.UndoID
	short, combined bool
}

// receiptOn reads what receipt message msgID reported; no changes for
// any other message.
func (b *Bot) receiptOn(ctx context.Context, chat nod.ChatID, msgID int) receiptShown {
	data, err := b.buttons.MessageButtons(ctx, chat, msgID)
	if err != nil {
		b.log.Warn("buttons of a receipt", "chat", chat, "message", msgID, "err", err)
		return receiptShown{}
	}
	return receiptOf(data)
}

// receiptOf is what a receipt whose buttons carry data reported.
func receiptOf(data []string) receiptShown {
	var out receiptShown
	all := false
	byN := map[int]nod.UndoID{}
	for _, d := range data {
		a, err := DecodeAction(d)
		switch {
		case err != nil:
		case a.Kind == nod.ActUndoAll:
			all = true
		case a.Kind == nod.ActUndoPick:
			out.short = true
		case a.Kind == nod.ActUndo && a.N > 0:
			byN[a.N] = nod.UndoID(a.ID)
		}
	}
	out.combined = all && !out.short
	out.ids = make([]nod.UndoID, len(byN))
	for n, id := range byN {
		if n > len(out.ids) {
			return receiptShown{} // not numbered from 1 on
		}
		out.ids[n-1] = id
	}
	return out
}

// keptReceipt is the receipt of the changes of undo entries ids, in
// that order, as they stand, read back with their kept receipts: each
// undone since struck out and without its Undo, each put back by a Redo
// as applied, its Undo being the Redo's; a rule's Stop only while the
// rule is on. false when a change's receipt or entry cannot be read.
func (b *Bot) keptReceipt(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, ids []nod.UndoID) (formatting.Message, []formatting.Receipt, bool) {
	rs, err := b.outbox.Receipts(ctx, chat, ids)
	if err != nil || len(rs) != len(ids) {
		b.log.Warn("kept receipts", "chat", chat, "changes", len(ids), "found", len(rs), "err", err)
		return formatting.Message{}, nil, false
	}
	frs := make([]formatting.Receipt, len(rs))
	for i, r := range rs {
		e, err := b.undos.UndoEntry(ctx, chat, ids[i])
		if err != nil {
			b.log.Warn("receipt's undo entry", "chat", chat, "undo", ids[i], "err", err)
			return formatting.Message{}, nil, false
		}
		frs[i] = formatting.Receipt{TaskTitle: r.TaskTitle, Item: r.Item, Quote: r.Quote, Trusted: r.Trusted, Rule: r.Rule,
			Who: b.nameOf(ctx, chat, e.UserID), Undone: e.UndoneNow, Spent: e.UndoneAt != nil || !b.now().Before(e.ExpiresAt)}
	}
	m := loc.Changes().Receipts(frs)
	m.Keyboard = slices.DeleteFunc(m.Keyboard, func(row []formatting.Button) bool {
		return row[0].Action.Kind == nod.ActStopRule && !slices.ContainsFunc(frs, func(r formatting.Receipt) bool {
			return r.Rule != nil && string(r.Rule.ID) == row[0].Action.ID && r.Rule.Status == nod.RuleActive
		})
	})
	return m, frs, true
}

// redrawReceipt edits receipt message msgID, which reported the changes
// of undo entries ids in that order, to show them as they stand
// (keptReceipt), with its own buttons. It reports whether it did.
func (b *Bot) redrawReceipt(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, msgID int, ids []nod.UndoID) bool {
	m, frs, ok := b.keptReceipt(ctx, loc, chat, ids)
	if !ok || len(frs) == 1 && frs[0].Undone {
		return false // a receipt of one change undone says so in its own words (ReceiptUndone)
	}
	if err := b.send.edit(ctx, chat, msgID, m); err != nil {
		b.log.Warn("redraw receipt", "chat", chat, "err", err)
		return false
	}
	return true
}

// redrawReceiptOf redraws the receipt that reported the change u's
// entry belongs to, unless it is message pressed (markUndone's): an Undo
// or Redo from another message (the Undone one's Redo, the Redo's Undo,
// /undo) leaves no receipt reading as it was. The receipt is found by
// the record of its Undo for the change: unnumbered on a receipt of one
// change, numbered on one of several.
func (b *Bot) redrawReceiptOf(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, u nod.Undone, pressed int) {
	root, _ := b.chain(ctx, chat, u.Redo)
	data, err := EncodeAction(nod.Action{Kind: nod.ActUndo, ID: string(root.ID)})
	if root.ID == "" || err != nil {
		return
	}
	found, err := b.buttons.NumberedButtons(ctx, chat, data)
	if err != nil || len(found) == 0 || found[0].Message == pressed {
		return
	}
	msg := found[0].Message
	a, err := DecodeAction(found[0].Data)
	if err != nil {
		return
	}
	r := b.receiptOn(ctx, chat, msg)
	switch {
	case r.combined:
		// One request's receipt: its one Undo took it all back, and its
		// message said so (combinedUndone).
	case a.N > 0 && (r.short || len(r.ids) > 1):
		b.redrawReceipt(ctx, loc, chat, msg, r.ids)
	case a.N > 0 || len(r.ids) > 0:
		// A numbered Undo on no receipt of several (a change set's
		// message, which its own refresh redraws), or an unnumbered one
		// beside numbered ones: nothing here to redraw.
	default:
		// The receipt of this one change, if a receipt it is: a change
		// set's message or a card has none kept, and is left be.
		if rs, err := b.outbox.Receipts(ctx, chat, []nod.UndoID{root.ID}); err != nil || len(rs) != 1 {
			return
		}
		if u.Redone { // as sent, without the Undo that the Redo's message has now
			b.redrawReceipt(ctx, loc, chat, msg, []nod.UndoID{root.ID})
		} else if err := b.send.edit(ctx, chat, msg, loc.Undo().ReceiptUndone(u.Redo)); err != nil {
			b.log.Warn("mark receipt undone", "chat", chat, "err", err)
		}
	}
}

// countUndos counts the Undo buttons of a keyboard.
func countUndos(kb *models.InlineKeyboardMarkup) int { return countKind(kb, nod.ActUndo) }

// countKind counts the buttons of a keyboard (nil: none) whose action is
// of kind.
func countKind(kb *models.InlineKeyboardMarkup, kind nod.ActionKind) int {
	if kb == nil {
		return 0
	}
	n := 0
	for _, row := range kb.InlineKeyboard {
		for _, btn := range row {
			if a, err := DecodeAction(btn.CallbackData); err == nil && a.Kind == kind {
				n++
			}
		}
	}
	return n
}

// undone refreshes the change set an undone item came from, reports the
// undo with a button to redo it (and what became of a reminder it left
// in the past; shown: its message has its buttons again), and says so
// if the breaker tripped.
func (b *Bot) undone(ctx context.Context, loc *formatting.Locale, at nod.Topic, undoID nod.UndoID, u nod.Undone, shown bool) {
	chat := at.ChatID
	if set, err := b.sets.ChangeSetByUndo(ctx, chat, undoID); err == nil {
		b.refresh(ctx, loc, set, 0, 0, nil)
	}
	b.refreshCard(ctx, loc, chat, u.Redo.TaskID)
	m := loc.Undo().Undone(u.Redo)
	if u.Redone {
		m = loc.Undo().Redone(u.Redo)
	}
	if u.Redo.Change.ExpectsTrashed() { // back on the list
		m = b.backTwin(ctx, loc, chat, u.Redo.TaskID, u.Redo.Title, m)
	}
	m = loc.Day().WithReminderBack(m, u.Reminder, shown)
	m = loc.Day().WithReminderHeld(m, "", u.Held)
	m = loc.Day().WithReminderResumed(m, u.Resumed)
	if b.reply(ctx, at, m) != 0 {
		b.delivered(ctx, chat, nod.OwedUndone, string(u.Redo.ID))
	}
	if u.Breaker {
		b.reply(ctx, at, loc.Changes().Breaker(u.Previous))
	}
}

func (b *Bot) cmdUndo(ctx context.Context, in incoming) {
	u, err := b.undos.LatestUndo(ctx, in.topic(), in.user)
	if errors.Is(err, nod.ErrNotFound) {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.NothingToUndo))
		return
	}
	if err == nil && b.reapplies(ctx, in.chat, u) {
		// The latest entry is an Undo's own: taking it back is a Redo,
		// which "/undo" never means.
		b.reply(ctx, in.topic(), in.loc.Text(formatting.UndoneAlready.With(u.Title)))
		return
	}
	if err == nil {
		var done nod.Undone
		if done, err = b.change.Undo(ctx, in.chat, in.user, u.ID, false); err == nil {
			shown := b.tapsBack(ctx, in.loc, in.chat, u.ID, done)
			b.redrawReceiptOf(ctx, in.loc, in.chat, done, 0)
			b.undone(ctx, in.loc, in.topic(), u.ID, done, len(shown) > 0)
			return
		}
		if errors.Is(err, nod.ErrStale) {
			b.offerUndoAnyway(ctx, in.loc, in.topic(), u.ID, err)
			return
		}
	}
	b.reply(ctx, in.topic(), formatting.Message{HTML: formatting.Escape(b.explain(in.loc, err, "undo", "chat", in.chat))})
}

// reapplies reports whether taking back u would apply again a change the
// person took back: u is an Undo's entry, an odd step along its chain of
// reverts (the entry of a Redo, an even step, takes the change back).
func (b *Bot) reapplies(ctx context.Context, chat nod.ChatID, u nod.UndoEntry) bool {
	_, odd := b.chain(ctx, chat, u)
	return odd
}

// chain follows u's chain of reverts back to the entry of the change it
// started from, root; odd says u is an odd step along it (see reapplies).
func (b *Bot) chain(ctx context.Context, chat nod.ChatID, u nod.UndoEntry) (root nod.UndoEntry, odd bool) {
	return b.change.Chain(ctx, chat, u)
}

// offerUndoAnyway shows what changed since, so that undo was refused,
// with Undo anyway.
func (b *Bot) offerUndoAnyway(ctx context.Context, loc *formatting.Locale, at nod.Topic, undoID nod.UndoID, err error) {
	chat := at.ChatID
	var cf nod.Conflict
	if !errors.As(err, &cf) {
		return
	}
	u, err := b.undos.UndoEntry(ctx, chat, undoID)
	if err != nil {
		b.log.Error("undo anyway", "chat", chat, "err", err)
		return
	}
	b.reply(ctx, at, loc.Undo().Stale(u, cf, b.now()))
}
