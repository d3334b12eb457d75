package bot

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// bulkUndos are the changes of the short receipt message msgID, in the
// order it lists them, as Undo n (numbered from 1): its own Undo
// buttons, bound to it when it was sent (formatting.Message.Bind), read
// back by receiptOn. The message names them; each undo still checks who
// may take it back.
func (b *Bot) bulkUndos(ctx context.Context, chat nod.ChatID, msgID int) []nod.Action {
	ids := b.receiptOn(ctx, chat, msgID).ids
	out := make([]nod.Action, len(ids))
	for i, id := range ids {
		out[i] = nod.Action{Kind: nod.ActUndo, ID: string(id), N: i + 1}
	}
	return out
}

// onUndoAll takes back every change of a short receipt in one
// transaction: the receipt loses its buttons and one message says how
// many went back. Changes undone one by one before are left out; a
// second tap finds nothing left.
func (b *Bot) onUndoAll(ctx context.Context, p press) string {
	acts := b.bulkUndos(ctx, p.chat, p.msgID)
	if len(acts) == 0 {
		return p.loc.Notice(formatting.NoticeButtonExpired)
	}
	// Newest first: a later change of the same task (a reminder set on
	// the task a receipt created, formatting.Changes.CombinedReceipt) is
	// taken back before the change it was made on.
	ids := make([]nod.UndoID, len(acts))
	for i, a := range acts {
		ids[len(acts)-1-i] = nod.UndoID(a.ID)
	}
	res, err := b.change.UndoAll(ctx, p.chat, p.user, ids)
	if errors.Is(err, nod.ErrDecided) {
		return p.loc.Notice(formatting.NoticeBulkUndone)
	}
	if err != nil {
		return b.explainAs(p.loc, err, undoNotices, "undo all", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		if countKind(p.keyboard, nod.ActUndoPick) == 0 && p.keyboard != nil {
			b.combinedUndone(ctx, p, res.Undone)
		} else if !b.redrawBulk(ctx, p, acts, nil) {
			b.send.editKeyboard(ctx, p.chat, p.msgID, noButtons())
		}
		redos := make([]string, len(res.Undone))
		entries := make([]nod.UndoEntry, len(res.Undone))
		for i, u := range res.Undone {
			redos[i], entries[i] = string(u.Redo.ID), u.Redo
			b.refreshCard(ctx, p.loc, p.chat, u.Redo.TaskID)
		}
		// One message for them all: each undo owes its report, which
		// this one is.
		m := p.loc.Changes().BulkUndone(entries)
		for _, u := range res.Undone {
			m = p.loc.Day().WithReminderHeld(m, u.Redo.Title, u.Held)
		}
		if b.reply(ctx, p.topic(), m) != 0 {
			b.delivered(ctx, p.chat, nod.OwedUndone, redos...)
		}
		if res.Breaker {
			b.reply(ctx, p.topic(), p.loc.Changes().Breaker(res.Previous))
		}
	})
	return p.loc.Notice(formatting.NoticeUndone)
}

// onUndoPick shows page N of a short receipt's changes that can still
// be undone, one Undo button each, in place of its buttons.
func (b *Bot) onUndoPick(ctx context.Context, p press) string {
	open := b.undoable(ctx, p.loc, p.chat, b.bulkUndos(ctx, p.chat, p.msgID))
	if len(open) == 0 {
		p.then(func(ctx context.Context) {
			b.send.editKeyboard(ctx, p.chat, p.msgID, noButtons())
		})
		return p.loc.Notice(formatting.NoticeBulkUndone)
	}
	kb, err := keyboard(formatting.Message{Keyboard: p.loc.Changes().UndoOne(p.undo(), open, p.action.N)})
	if err != nil {
		return b.explain(p.loc, err, "undo one", "chat", p.chat)
	}
	p.then(func(ctx context.Context) { b.send.editKeyboard(ctx, p.chat, p.msgID, kb) })
	return ""
}

// undoable are the changes of acts that can still be undone, with their
// tasks' titles and what each did: not those to a task whose creation
// among them is undone (the task is in the trash, and they went with it).
func (b *Bot) undoable(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, acts []nod.Action) []formatting.BulkChange {
	es := make(map[int]nod.UndoEntry, len(acts)) // by the change's number
	var gone []nod.TaskID
	for _, a := range acts {
		if u, err := b.undos.UndoEntry(ctx, chat, nod.UndoID(a.ID)); err == nil {
			es[a.N] = u
			if u.Tool == nod.ToolCreateTask && u.UndoneNow {
				gone = append(gone, u.TaskID)
			}
		}
	}
	var out []formatting.BulkChange
	now := b.now()
	for _, a := range acts {
		u, ok := es[a.N]
		if ok && u.UndoneAt == nil && now.Before(u.ExpiresAt) && !slices.Contains(gone, u.TaskID) {
			out = append(out, loc.Changes().BulkChangeOf(a.N, u))
		}
	}
	return out
}

// bulkUndoneOne edits a short receipt after the person undid change n
// from its Undo one… page: the page shows what is left, or the receipt
// loses its buttons when nothing is. It reports whether the pressed
// message is such a receipt (it carries Undo all).
func (b *Bot) bulkUndoneOne(ctx context.Context, p press) bool {
	var first string
	for _, row := range p.keyboard.InlineKeyboard {
		for _, btn := range row {
			if a, err := DecodeAction(btn.CallbackData); err == nil && a.Kind == nod.ActUndoAll {
				first = a.ID
			}
		}
	}
	if first == "" {
		return false
	}
	acts := b.bulkUndos(ctx, p.chat, p.msgID)
	open := b.undoable(ctx, p.loc, p.chat, acts)
	buttons := p.loc.Changes().UndoOneNear(nod.UndoID(first), open, p.action.N)
	if b.redrawBulk(ctx, p, acts, buttons) {
		return true
	}
	kb, err := keyboard(formatting.Message{Keyboard: buttons})
	if err != nil {
		b.log.Warn("short receipt after undo", "chat", p.chat, "err", err)
		return true
	}
	b.send.editKeyboard(ctx, p.chat, p.msgID, kb)
	return true
}

// redrawBulk edits the short receipt p was pressed on to list its
// changes acts as they stand, those undone struck through and counted,
// with buttons: what an Undo one… or Undo all took back no longer reads
// as applied. It draws from the changes' kept receipts (keptReceipt),
// or, for a receipt sent before the outbox kept them, from its text as
// Telegram hands it back. It reports false, changing nothing, when it
// cannot: neither is there, or a change's entry is gone.
func (b *Bot) redrawBulk(ctx context.Context, p press, acts []nod.Action, buttons [][]formatting.Button) bool {
	ids := make([]nod.UndoID, len(acts))
	for i, a := range acts {
		ids[i] = nod.UndoID(a.ID)
	}
	if m, _, ok := b.keptReceipt(ctx, p.loc, p.chat, ids); ok && len(ids) > 0 {
		m.Keyboard = buttons
		if err := b.send.edit(ctx, p.chat, p.msgID, m); err != nil {
			b.log.Warn("redraw short receipt", "chat", p.chat, "err", err)
			return false
		}
		return true
	}
	// Its receipts not kept (sent before the outbox kept them all): the
	// words it was sent with, as Telegram hands them back.
	if p.text == "" || len(acts) == 0 {
		return false
	}
	es := make([]nod.UndoEntry, len(acts))
	for i, a := range acts {
		u, err := b.undos.UndoEntry(ctx, p.chat, nod.UndoID(a.ID))
		if err != nil {
			return false
		}
		es[i] = u
	}
	m := p.loc.Changes().BulkRedrawn(es, formatting.BulkSaid(p.text))
	m.Keyboard = buttons
	if err := b.send.edit(ctx, p.chat, p.msgID, m); err != nil {
		b.log.Warn("redraw short receipt", "chat", p.chat, "err", err)
		return false
	}
	return true
}

// combinedUndone edits a receipt of one request's changes made in
// several steps (formatting.Changes.CombinedReceipt, whose one Undo is
// Undo all's) once they are undone: like the receipt of one change, it
// says so, a line per change in the receipt's order, and loses its Undo.
func (b *Bot) combinedUndone(ctx context.Context, p press, undone []nod.Undone) {
	lines := make([]string, len(undone))
	for i, u := range undone {
		lines[len(undone)-1-i] = p.loc.Undo().ReceiptUndone(u.Redo).HTML
	}
	if err := b.send.edit(ctx, p.chat, p.msgID, formatting.Message{HTML: strings.Join(lines, "\n")}); err != nil {
		b.log.Warn("mark receipt undone", "chat", p.chat, "err", err)
	}
}
