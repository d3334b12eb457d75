package bot

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// taskPage is how many tasks /tasks shows a message: with their buttons
// and ◀ ▶, a keyboard far below Telegram's 100 buttons.
const taskPage = 20

// cmdTasks shows the first page of the chat's open tasks, or with
// "#label" (or just the label) of those carrying that label.
func (b *Bot) cmdTasks(ctx context.Context, in incoming) {
	_, arg, _ := strings.Cut(in.text, " ")
	l := nod.TaskList{Label: strings.TrimPrefix(strings.TrimSpace(arg), "#"), Today: b.today(in.loc)}
	page, err := b.tasks.ListPage(ctx, in.chat, l, nod.PageRequest{Limit: taskPage})
	if err != nil {
		b.log.Error("list tasks", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.reply(ctx, in.topic(), in.loc.Tasks().List(page, formatting.ListView{TaskList: l, Page: 1, PageSize: taskPage, Now: b.now(), Group: in.chat < 0, Names: b.reminderNames(ctx, in.chat, page.Tasks)}))
}

// reminderNames are, in a group, the names of those who set the upcoming
// reminders of tasks: /tasks says whose each is. Played, a member met
// the rule that only its person moves it only when refused.
func (b *Bot) reminderNames(ctx context.Context, chat nod.ChatID, tasks []nod.Task) map[nod.UserID]string {
	if chat >= 0 {
		return nil
	}
	names := map[nod.UserID]string{}
	for _, t := range tasks {
		if _, ok := names[t.RemindBy]; !ok && t.RemindBy != 0 && t.RemindAt != nil && t.RemindAt.After(b.now()) {
			names[t.RemindBy] = b.nameOf(ctx, chat, t.RemindBy)
		}
	}
	return names
}

// today is the chat's local date: what /tasks counts as overdue.
func (b *Bot) today(loc *formatting.Locale) string {
	return b.now().In(loc.Zone()).Format(nod.DateLayout)
}

// cmdToday shows what is overdue or due on the chat's local day, and the
// day's reminders.
func (b *Bot) cmdToday(ctx context.Context, in incoming) {
	now := b.now().In(in.loc.Zone())
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	today := from.Format(nod.DateLayout)
	l, err := b.tasks.TodayList(ctx, in.chat, today, from, from.AddDate(0, 0, 1), taskPage)
	if err != nil {
		b.log.Error("today", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.reply(ctx, in.topic(), in.loc.Tasks().Today(l, today, b.now()))
}

// onTaskPage leafs the /tasks message it was pressed on to the page
// before or after the task its button names, or to the first page of the
// list it names, editing it in place.
func (b *Bot) onTaskPage(ctx context.Context, p press) string {
	ref, err := nod.ParseListRef(p.action.ID)
	if err != nil {
		return b.explain(p.loc, err, "task page", "chat", p.chat)
	}
	l := nod.TaskList{Label: ref.Label, Done: ref.Done, Today: b.today(p.loc)}
	req := nod.PageRequest{Limit: taskPage, After: ref.Cursor}
	if p.action.N == nod.PageEarlier {
		req = nod.PageRequest{Limit: taskPage, Before: ref.Cursor}
	}
	page, err := b.tasks.ListPage(ctx, p.chat, l, req)
	if err == nil && len(page.Tasks) == 0 && req.After != "" {
		// The tasks after the button's are gone or done since: start over.
		req, ref.Page = nod.PageRequest{Limit: taskPage}, 1
		page, err = b.tasks.ListPage(ctx, p.chat, l, req)
	}
	if err != nil {
		return b.explain(p.loc, err, "task page", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Tasks().List(page, formatting.ListView{TaskList: l, Page: ref.Page, PageSize: taskPage, Now: b.now(), Group: p.chat < 0, Names: b.reminderNames(ctx, p.chat, page.Tasks)})); err != nil {
			b.log.Warn("task page", "chat", p.chat, "err", err)
		}
	})
	return ""
}

func (b *Bot) onOpenTask(ctx context.Context, p press) string {
	t, err := b.tasks.Task(ctx, p.chat, p.task())
	if errors.Is(err, nod.ErrTrashed) {
		// Deleted since the list was shown: say so, and offer it back.
		titles, err := b.tasks.TaskTitles(ctx, p.chat, []nod.TaskID{p.task()})
		if err != nil {
			return b.explain(p.loc, err, "open task", "chat", p.chat)
		}
		p.then(func(ctx context.Context) {
			b.reply(ctx, p.topic(), p.loc.Tasks().InTrash(p.task(), titles[p.task()]))
		})
		return p.loc.Notice(formatting.NoticeInTrash)
	}
	if err != nil {
		text, _ := notice(p.loc, err, nil)
		return text
	}
	p.then(func(ctx context.Context) {
		if id := b.reply(ctx, p.topic(), p.loc.Tasks().Card(t, b.now())); id != 0 {
			if err := b.messages.SetCardMessage(ctx, p.chat, t.ID, id); err != nil {
				b.log.Warn("remember card", "chat", p.chat, "err", err)
			}
		}
	})
	return ""
}

func (b *Bot) onToggle(ctx context.Context, p press) string {
	applied, err := b.change.Toggle(ctx, p.topic(), p.user, p.item(), p.action.N)
	if errors.Is(err, nod.ErrDecided) {
		// The card was out of date: show the item as it is.
		p.then(func(ctx context.Context) {
			if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Tasks().Card(applied.After, b.now())); err != nil {
				b.log.Warn("refresh task card", "err", err)
			}
		})
		it, _ := applied.After.Item(p.item())
		return formatting.PlainText(p.loc.Render(formatting.AlreadyToggled.With(it)))
	}
	if err != nil {
		return b.explain(p.loc, err, "toggle", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Tasks().Card(applied.After, b.now())); err != nil {
			b.log.Warn("refresh task card", "err", err)
		}
	})
	it, _ := applied.After.Item(p.item())
	return formatting.PlainText(p.loc.Render(formatting.Toggled.With(it)))
}

// refreshCard brings the chat's latest card of task up to date after a
// change made elsewhere (an undo), so that its toggles show the items as
// they are.
func (b *Bot) refreshCard(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, taskID nod.TaskID) {
	b.refreshCards(ctx, loc, chat, 0, []nod.TaskID{taskID})
}

// maxCardRefresh bounds the cards one turn or tap redraws: a turn that
// changed a hundred tasks redraws the cards of the first so many.
const maxCardRefresh = 20

// refreshCards redraws the chat's latest card of each of tasks after a
// change made elsewhere (a turn's receipt, a change set's ✓), and the
// card replyTo (0: none) when it shows one of them: a card left as it
// was would show the task as it was, and its buttons would find it
// changed since. Which cards there are is one read.
func (b *Bot) refreshCards(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, replyTo int, tasks []nod.TaskID) {
	ids := cardTasks(tasks)
	cards, err := b.messages.CardMessages(ctx, chat, ids)
	if err != nil {
		b.log.Warn("cards to redraw", "chat", chat, "err", err)
		return
	}
	b.drawCards(ctx, loc, chat, replyTo, ids, cards)
}

// redrawCards is refreshCards with the cards' messages known already
// (nod.Decided.Cards).
func (b *Bot) redrawCards(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, tasks []nod.TaskID, cards map[nod.TaskID]int) {
	b.drawCards(ctx, loc, chat, 0, cardTasks(tasks), cards)
}

// cardTasks are the tasks whose cards a change redraws: each once, and
// so many at most.
func cardTasks(tasks []nod.TaskID) []nod.TaskID {
	var ids []nod.TaskID
	for _, id := range tasks {
		if id != "" && !slices.Contains(ids, id) && len(ids) < maxCardRefresh {
			ids = append(ids, id)
		}
	}
	return ids
}

// drawCards edits the cards (their messages by task) of tasks ids, and
// the card replyTo if it shows one of them.
func (b *Bot) drawCards(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, replyTo int, ids []nod.TaskID, cards map[nod.TaskID]int) {
	for _, id := range ids {
		if msg, ok := cards[id]; ok {
			b.cardNow(ctx, loc, chat, msg, id)
		}
	}
	if replyTo == 0 {
		return
	}
	if t, ok := b.cardOf(ctx, chat, replyTo); ok && slices.Contains(ids, t.ID) && cards[t.ID] != replyTo {
		b.cardNow(ctx, loc, chat, replyTo, t.ID)
	}
}

// cardNow edits message id, a card of task taskID, to show it as it is.
func (b *Bot) cardNow(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, id int, taskID nod.TaskID) {
	t, err := b.tasks.Task(ctx, chat, taskID)
	if err != nil {
		return // in the trash: the card's buttons answer so
	}
	if err := b.send.edit(ctx, chat, id, loc.Tasks().Card(t, b.now())); err != nil {
		b.log.Warn("refresh card", "chat", chat, "err", err)
	}
}

// onCardDone marks the task of a card done, or on a repeating reminder
// this occurrence, as the reminder's ✓ Done does: the person's own
// change, applied at once, with its Undo on the card.
func (b *Bot) onCardDone(ctx context.Context, p press) string {
	return b.cardTap(ctx, p, func(nod.Task) (nod.Applied, error) {
		return b.reminders.CardDone(ctx, p.topic(), p.user, p.task(), p.loc.Zone(), shownAt(p.action.N))
	})
}

// onCardSnooze puts a card's task's reminder off as the reminder's own
// ⏰ buttons do (nod.SnoozeUntil).
func (b *Bot) onCardSnooze(ctx context.Context, p press) string {
	return b.cardTap(ctx, p, func(t nod.Task) (nod.Applied, error) {
		n := nod.SnoozeHour
		if p.action.Kind == nod.ActCardTomorrow {
			n = nod.SnoozeTomorrow
		}
		at := nod.SnoozeUntil(n, b.now(), t.RemindAt, p.loc.Zone())
		return b.reminders.CardSnooze(ctx, p.topic(), p.user, p.task(), at, shownAt(p.action.N))
	})
}

// onCardReopen opens a card's done task again.
func (b *Bot) onCardReopen(ctx context.Context, p press) string {
	return b.cardTap(ctx, p, func(nod.Task) (nod.Applied, error) {
		return b.reminders.Reopen(ctx, p.topic(), p.user, p.task())
	})
}

// shownAt is the reminder a card's button carries (Unix seconds, 0 for
// none) as a time, zero for none.
func shownAt(n int) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(int64(n), 0)
}

// cardTap applies a tap on a card's button and edits the card to show
// the task as the tap left it, with its Undo. A card out of date (the
// task closed, opened or its reminder moved since) changes nothing and is
// brought up to date.
func (b *Bot) cardTap(ctx context.Context, p press, apply func(nod.Task) (nod.Applied, error)) string {
	t, err := b.tasks.Task(ctx, p.chat, p.task())
	if err != nil {
		return b.explainAs(p.loc, err, cardNotices, "card", "chat", p.chat)
	}
	if no := b.othersTask(ctx, p, t); no != "" {
		return no
	}
	applied, err := apply(t)
	if errors.Is(err, nod.ErrDecided) {
		p.then(func(ctx context.Context) {
			if t, err := b.tasks.Task(ctx, p.chat, p.task()); err == nil {
				if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Tasks().Card(t, b.now())); err != nil {
					b.log.Warn("refresh task card", "chat", p.chat, "err", err)
				}
			}
		})
	}
	if err != nil {
		return b.explainAs(p.loc, err, cardNotices, "card", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Tasks().CardTapped(applied.After, b.now(), applied.Undo.ID)); err != nil {
			b.log.Warn("edit task card", "chat", p.chat, "err", err)
		}
	})
	return ""
}

// othersTask refuses a tap on the card of another member's task in a
// group (nod.Task.Owner), naming whose it is; "" when p's person may act
// on it. confirm.Service checks again as it writes.
func (b *Bot) othersTask(ctx context.Context, p press, t nod.Task) string {
	o := t.Owner()
	if o == 0 || o == p.user {
		return ""
	}
	if name := b.nameOf(ctx, p.chat, o); name != "" {
		return p.loc.Notice(formatting.NoticeTaskWhose.With(name))
	}
	return p.loc.Notice(formatting.NoticeTaskForbidden)
}

// isCard reports whether kb is a task card's: it has ✓ Done or ↩️ Reopen.
func isCard(kb *models.InlineKeyboardMarkup) bool {
	return countKind(kb, nod.ActCardDone)+countKind(kb, nod.ActCardReopen) > 0
}
