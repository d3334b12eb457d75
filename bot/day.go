package bot

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/sweep"
)

// zone is the chat's time zone, the operator's default if it set none.
func (b *Bot) zone(s *nod.ChatSettings) *time.Location {
	if s == nil {
		return b.opts.TimeZone
	}
	return s.Zone(b.opts.TimeZone)
}

// zoneName is the name of the chat's zone as /tz shows it.
func (b *Bot) zoneName(s *nod.ChatSettings) string { return b.zone(s).String() }

// mayChangeChat reports whether the sender may change a chat-wide
// setting: anyone in a private chat, only administrators in a group.
// Telegram's answer decides; when it cannot be had, nothing changes.
func (b *Bot) mayChangeChat(ctx context.Context, in incoming, what string) bool {
	if b.mayChange(ctx, in.chat, in.user, in.speaker != "") {
		return true
	}
	b.reply(ctx, in.topic(), in.loc.Text(formatting.AdminOnly.With(what)))
	return false
}

// mayChange reports whether user may change chat's settings: anyone in a
// private chat, in a group its owner and administrators, as Telegram
// says now (a failed look-up says no).
func (b *Bot) mayChange(ctx context.Context, chat nod.ChatID, user nod.UserID, group bool) bool {
	if !group {
		return true
	}
	cm, err := b.tg.GetChatMember(ctx, &tgbot.GetChatMemberParams{ChatID: chat, UserID: int64(user)})
	if err != nil {
		b.log.Warn("get chat member", "chat", chat, "user", user, "err", redactErr(err, b.opts.Token))
		return false
	}
	return cm.Type == models.ChatMemberTypeOwner || cm.Type == models.ChatMemberTypeAdministrator
}

// cmdTz shows the chat's time zone, or sets it: "/tz Europe/Berlin",
// or a city's, "/tz München"; a name several places share is asked
// about, one button each.
func (b *Bot) cmdTz(ctx context.Context, in incoming) {
	_, arg, _ := strings.Cut(in.text, " ")
	arg = strings.TrimSpace(arg)
	if arg == "" {
		if s := in.settings; s != nil && s.TimeZone != "" && s.ZoneUntil != nil {
			b.reply(ctx, in.topic(), in.loc.Day().TimeZoneStay(s.TimeZone, b.now(), *s.ZoneUntil, cmp.Or(s.ZoneBack, b.opts.TimeZone.String())))
			return
		}
		b.reply(ctx, in.topic(), in.loc.Day().TimeZoneShow(b.zoneName(in.settings), in.settings != nil && in.settings.TimeZone != "", b.now()))
		return
	}
	var city *nod.City
	zone, err := nod.LoadZone(arg)
	if err != nil {
		m, ok := b.findCity(ctx, in, arg)
		if !ok {
			return
		}
		if !m.Found() {
			b.askCity(ctx, in, arg, m)
			return
		}
		city = &m.Cities[0]
		if zone, err = nod.LoadZone(city.Zone); err != nil {
			b.log.Error("zone of a city", "city", city.ID, "zone", city.Zone, "err", err)
			b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
			return
		}
	}
	if !b.mayChangeChat(ctx, in, "tz") {
		return
	}
	before := b.zoneName(in.settings)
	zc, err := b.days.SetTimeZone(ctx, in.chat, in.user, zone.String(), b.opts.TimeZone, nod.ToolTZ, nil)
	if err != nil {
		b.log.Error("set time zone", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	var daily string
	if in.settings != nil {
		daily = in.settings.Daily
	}
	b.reply(ctx, in.topic(), in.loc.In(zone).Day().TimeZoneSet(before, zone.String(), city, zc.Moved, b.now(), daily, sweep.NextDaily(daily, zone, b.now()), zc.ID))
	b.resume(ctx, in, zone)
}

// resume hands what gave the chat its first zone (a /tz, a shared
// location) to the agent, which may have asked where the person is
// before it set their time: "remind me at 10" → "Where are you?" → /tz
// Lisbon goes on in Lisbon's time without their saying it again. In a
// chat that had a zone, or with no question of the agent's to this
// person waiting (nod.ErrNotAsked), the agent is not asked.
func (b *Bot) resume(ctx context.Context, in incoming, zone *time.Location) {
	if in.settings != nil && in.settings.TimeZone != "" {
		return
	}
	s := nod.ChatSettings{}
	if in.settings != nil {
		s = *in.settings
	}
	s.TimeZone = zone.String()
	in.settings, in.loc = &s, in.loc.In(zone) // what the turn sends reads in the new zone
	req := b.request(ctx, in)
	req.Resume, req.Settings = true, nil // the agent reads them afresh
	b.turn(ctx, in, req)
}

// findCity looks up the places name means; ok is false when the person
// was answered already (no such place, or the look-up failed).
func (b *Bot) findCity(ctx context.Context, in incoming, name string) (m nod.CityMatch, ok bool) {
	if b.places != nil {
		var err error
		if m, err = b.places.FindCity(name); err != nil {
			b.log.Error("find a city", "chat", in.chat, "err", err)
			b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
			return m, false
		}
	}
	if len(m.Cities) == 0 {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.TzBad.With(name)))
		return m, false
	}
	return m, true
}

// askCity asks which of the places called name the person means, with a
// button for each that sets its zone: a proposal kept for the person who
// asked, as the agent's are, so that the button authorizes nothing.
func (b *Bot) askCity(ctx context.Context, in incoming, name string, m nod.CityMatch) {
	if !b.mayChangeChat(ctx, in, "tz") {
		return
	}
	zones := make([]string, len(m.Cities))
	for i, c := range m.Cities {
		zones[i] = c.Zone
	}
	asked, err := b.days.AskZones(ctx, in.chat, in.user, zones)
	if err != nil {
		b.log.Error("ask time zone", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	ids := make([]string, len(asked))
	for i, zc := range asked {
		ids[i] = zc.ID
	}
	b.reply(ctx, in.topic(), in.loc.Day().TimeZoneWhich(name, m.Cities, ids, m.Total))
}

// cmdDaily shows, sets or stops the chat's daily review: "/daily",
// "/daily 08:00" (or "7", "19 Uhr", "7pm"), "/daily 08:00 quiet",
// "/daily off".
func (b *Bot) cmdDaily(ctx context.Context, in incoming) {
	args := strings.Fields(strings.ToLower(in.text))[1:]
	show := func(s *nod.ChatSettings) {
		at, quiet := "", false
		if s != nil {
			at, quiet = s.Daily, s.DailyQuiet
		}
		b.reply(ctx, in.topic(), in.loc.Day().Daily(at, quiet, b.zoneName(s), s != nil && s.TimeZone != "", sweep.NextDaily(at, b.zone(s), b.now())))
	}
	if len(args) == 0 {
		show(in.settings)
		return
	}
	at, quiet := "", false
	if len(args) != 1 || args[0] != "off" {
		if quiet = args[len(args)-1] == "quiet"; quiet {
			args = args[:len(args)-1]
		}
		h, m, err := nod.ReadTimeOfDay(strings.Join(args, " "))
		if err != nil {
			b.reply(ctx, in.topic(), in.loc.Text(formatting.DailyBad))
			return
		}
		at = time.Date(0, 1, 1, h, m, 0, 0, time.UTC).Format("15:04")
	}
	if !b.mayChangeChat(ctx, in, "daily") {
		return
	}
	if err := b.days.SetDaily(ctx, in.topic(), in.user, at, quiet, b.opts.TimeZone); err != nil {
		b.log.Error("set daily review", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	if at == "" {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.DailyOff))
		return
	}
	s := nod.ChatSettings{}
	if in.settings != nil {
		s = *in.settings
	}
	s.Daily, s.DailyQuiet = at, quiet
	show(&s)
}

// onUndoZone puts back the zone a receipt reported changing.
func (b *Bot) onUndoZone(ctx context.Context, p press) string {
	zc, err := b.days.UndoZone(ctx, p.chat, p.user, p.action.ID, b.opts.TimeZone)
	if (errors.Is(err, nod.ErrStale) || errors.Is(err, nod.ErrDecided) || errors.Is(err, nod.ErrExpired)) && p.keyboard != nil {
		// The zone changed since, or this change is undone already: the
		// button can never work again, so it goes.
		p.then(func(ctx context.Context) {
			b.send.editKeyboard(ctx, p.chat, p.msgID, withoutButton(p.keyboard, p.data))
		})
	}
	if err != nil {
		return b.explainAs(p.loc, err, undoZoneNotices, "undo time zone", "chat", p.chat)
	}
	before := zc.Before
	if before == "" {
		before = b.opts.TimeZone.String()
	}
	p.then(func(ctx context.Context) {
		who := ""
		if p.group {
			who = b.nameOf(ctx, p.chat, p.user)
		}
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Day().TimeZoneUndone(cmp.Or(zc.After, b.opts.TimeZone.String()), before, zc.Moved, b.now(), who, zc.Stay)); err != nil {
			b.log.Warn("mark zone undone", "chat", p.chat, "err", err)
		}
	})
	return p.loc.Notice(formatting.NoticeUndone)
}

// deliverDue sends one claimed reminder, or runs one daily review, and
// marks it delivered.
func (b *Bot) deliverDue(ctx context.Context, o nod.Owed) {
	switch o.Kind {
	case nod.OwedReminder:
		b.remind(ctx, o)
	case nod.OwedDaily:
		b.queue.push(b.work, o.ChatID, nil, func(ctx context.Context) { b.dailyReview(ctx, o) })
	case nod.OwedZoneBack:
		b.zoneBack(ctx, o)
	}
}

// zoneBack tells the chat that a zone set for a while went back on its
// own to the zone before it, with what that moved and its Undo.
func (b *Bot) zoneBack(ctx context.Context, o nod.Owed) {
	z := o.Zone
	if z == nil { // nothing to say it with
		b.delivered(ctx, o.ChatID, nod.OwedZoneBack, o.Ref)
		return
	}
	zone, err := nod.LoadZone(cmp.Or(z.After, b.opts.TimeZone.String()))
	if err != nil {
		zone = b.opts.TimeZone
	}
	loc := b.locale(ctx, o.ChatID, "").In(zone)
	before := cmp.Or(z.Before, b.opts.TimeZone.String())
	if b.reply(ctx, o.Topic, loc.Day().TimeZoneBack(before, zone.String(), z.Moved, b.now(), z.ID)) != 0 {
		b.delivered(ctx, o.ChatID, nod.OwedZoneBack, o.Ref)
		b.log.Info("zone back", "chat", o.ChatID, "zone", zone.String())
	}
}

// remind sends a task's reminder, if the sweep says it still goes out.
func (b *Bot) remind(ctx context.Context, o nod.Owed) {
	t, ok := b.sweeps.Reminder(ctx, o)
	if !ok {
		return
	}
	loc := b.locale(ctx, o.ChatID, "")
	late := b.now().Sub(o.Due)
	if t.RemindClock == nil && o.DueZone != "" {
		t.RemindClock = stayClock(o.DueZone, o.Due)
	}
	m := loc.Day().WithMissed(loc.Day().Reminder(t, o.Due, late, b.whoseReminder(ctx, o.ChatID, t)), o.Missed, o.MissedFrom)
	if id := b.reply(ctx, o.Topic, m); id != 0 {
		b.delivered(ctx, o.ChatID, nod.OwedReminder, o.Ref)
		b.metrics.reminders.Inc()
		b.log.Info("reminder sent", "chat", o.ChatID, "task", t.ID, "late_s", int(late.Seconds()))
		b.reminderCame(ctx, loc, o.ChatID, t, o.Due, id)
	}
}

// stayClock is the clock of a stay's zone at due, which a reminder due
// during the stay but sent once the chat was home again names; nil for a
// zone that does not load.
func stayClock(zone string, due time.Time) *nod.Clock {
	z, err := nod.LoadZone(zone)
	if err != nil {
		return nil
	}
	_, offset := due.In(z).Zone()
	return &nod.Clock{Offset: offset, Zone: zone}
}

// whoseReminder names, in a group, the person whose reminder t has: ""
// in a private chat or when nod never learned the name.
func (b *Bot) whoseReminder(ctx context.Context, chat nod.ChatID, t nod.Task) string {
	if t.RemindBy == 0 {
		return ""
	}
	return b.nameOf(ctx, chat, t.RemindBy) // known in groups only
}

// recentReminders is how many of a task's latest reminder messages are
// looked at for the taps shown on them.
const recentReminders = 10

// reminderMsg is one of a task's reminder messages (those sent with its
// ✓ Done) and the undo entries whose Undo it has carried: a tap on ✓ Done
// or ⏰ puts its Undo on the reminder it was tapped on.
type reminderMsg struct {
	id    int
	undos []nod.UndoID
}

// reminderMessages returns task taskID's latest reminder messages but
// skip, newest first.
func (b *Bot) reminderMessages(ctx context.Context, chat nod.ChatID, taskID nod.TaskID, skip int) []reminderMsg {
	done, err := EncodeAction(nod.Action{Kind: nod.ActRemindDone, ID: string(taskID)})
	if err != nil {
		return nil
	}
	msgs, err := b.buttons.ButtonMessages(ctx, chat, done)
	if err != nil {
		b.log.Warn("reminder messages", "chat", chat, "task", taskID, "err", err)
		return nil
	}
	var out []reminderMsg
	for _, msg := range msgs[:min(len(msgs), recentReminders)] {
		if msg == skip {
			continue // a reminder just sent: nothing tapped on it yet
		}
		data, err := b.buttons.MessageButtons(ctx, chat, msg)
		if err != nil {
			b.log.Warn("reminder message buttons", "chat", chat, "message", msg, "err", err)
			continue
		}
		m := reminderMsg{id: msg}
		for _, d := range data {
			if a, err := DecodeAction(d); err == nil && a.Kind == nod.ActUndo {
				m.undos = append(m.undos, nod.UndoID(a.ID))
			}
		}
		out = append(out, m)
	}
	return out
}

// reminderCame brings task t's earlier reminder messages up to date now
// that its reminder at due went out again as message sent. A snooze that
// put it off to due says it came and loses its Undo, which would move a
// reminder that was sent (a tap that comes anyway is refused,
// nod.ErrSent). The reminder message before it loses its buttons: ✓ Done
// and ⏰ are the new message's now, and an Undo there would take back a
// tap on a reminder that has come again. Older ones lost theirs when the
// one after them came.
func (b *Bot) reminderCame(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, t nod.Task, due time.Time, sent int) {
	for i, m := range b.reminderMessages(ctx, chat, t.ID, sent) {
		if b.snoozeCame(ctx, loc, chat, t, due, m) || i > 0 {
			continue
		}
		b.send.editKeyboard(ctx, chat, m.id, noButtons())
	}
}

// dealtWith reports whether change it deals with its task's reminder as
// the reminder's ✓ Done would: the task closed, or this time of its
// repeating reminder done.
func dealtWith(it nod.ChangeItem) bool {
	closes := it.Tool == nod.ToolSetStatus && (it.After == string(nod.StatusDone) || it.After == string(nod.StatusRejected))
	return closes || it.CompletesOccurrence()
}

// remindersDealtWith takes the buttons off the reminder messages of the
// task change it dealt with in words ("done, called them"): their ✓ Done
// or ⏰ would act on a reminder dealt with already. The latest says it is
// done, as ✓ Done tapped there would, by who in a group; its Undo is the
// receipt's. Played, they stayed live, and then read as still open.
func (b *Bot) remindersDealtWith(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, it nod.ChangeItem, who string) {
	for i, m := range b.reminderMessages(ctx, chat, it.TaskID, 0) {
		if i == 0 && it.After != string(nod.StatusRejected) {
			if t, err := b.tasks.Task(ctx, chat, it.TaskID); err == nil {
				done := loc.Day().ReminderDone(t, "", who)
				done.Keyboard = nil
				if err := b.send.edit(ctx, chat, m.id, done); err != nil {
					b.log.Warn("mark reminder done", "chat", chat, "message", m.id, "err", err)
				}
				continue
			}
		}
		b.send.editKeyboard(ctx, chat, m.id, noButtons())
	}
}

// decidedReminders is remindersDealtWith for the items of a change set
// that a decision applied: a proposal to mark a task done, confirmed,
// deals with its reminder as words do.
func (b *Bot) decidedReminders(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, user nod.UserID, d nod.Decided) {
	for _, n := range slices.Sorted(maps.Keys(d.Applied)) {
		if it, ok := d.Set.Item(n); ok && dealtWith(*it) {
			b.remindersDealtWith(ctx, loc, chat, *it, b.nameOf(ctx, chat, user))
		}
	}
}

// snoozeCame redraws message m if a snooze tapped on it put t's reminder
// off to due, or a ✓ Done on a repeating one moved it on to due, which
// has now come; it reports whether it did.
func (b *Bot) snoozeCame(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, t nod.Task, due time.Time, m reminderMsg) bool {
	for _, id := range m.undos {
		u, err := b.undos.UndoEntry(ctx, chat, id)
		if err != nil || u.UndoneAt != nil {
			continue
		}
		if at, ok := u.Change.RemindsAt(); !ok || !at.Equal(due) {
			continue
		}
		whose := b.whoseReminder(ctx, chat, t)
		again := loc.Day().ReminderAgain(t, due, whose)
		if u.CompletesOccurrence() {
			// ✓ Done moved the reminder on to due, as a snooze would: the
			// time it completed stays done.
			again = loc.Day().ReminderDoneNextSent(t, due, whose)
		}
		if err := b.send.edit(ctx, chat, m.id, again); err != nil {
			b.log.Warn("mark snooze passed", "chat", chat, "message", m.id, "err", err)
		}
		return true
	}
	return false
}

// tapsBack edits the reminder message that a tap on ✓ Done or ⏰ was
// made on to what the undo of undoID, an entry along that tap's chain of
// undos and redos, leaves: the reminder with its buttons again, as
// before the tap, when the tap is taken back and the task is open; the
// tap's outcome with the new Undo when it is applied again. It returns
// the messages it edited.
func (b *Bot) tapsBack(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, undoID nod.UndoID, u nod.Undone) []int {
	e, err := b.undos.UndoEntry(ctx, chat, undoID)
	if err != nil {
		return nil
	}
	tap, again := b.chain(ctx, chat, e)
	if tap.Tool != nod.ToolSetStatus && tap.Tool != nod.ToolSetReminder {
		return nil // no tap of a reminder's
	}
	t, err := b.tasks.Task(ctx, chat, u.Redo.TaskID)
	if err != nil || t.DeletedAt != nil {
		return nil
	}
	var m formatting.Message
	whose := b.whoseReminder(ctx, chat, t)
	switch open := t.Status != nod.StatusDone && t.Status != nod.StatusRejected; {
	case again && tap.Tool == nod.ToolSetStatus && !open, again && tap.CompletesOccurrence() && t.RemindAt != nil:
		m = loc.Day().ReminderDone(t, u.Redo.ID, whose)
	case again && tap.Tool == nod.ToolSetReminder && t.RemindAt != nil:
		m = loc.Day().ReminderSnoozed(t, u.Redo.ID, whose)
	case !again && open && t.RemindAt != nil:
		m = loc.Day().Reminder(t, *t.RemindAt, 0, whose)
	default:
		return nil
	}
	var out []int
	for i, rm := range b.reminderMessages(ctx, chat, t.ID, 0) {
		if !slices.Contains(rm.undos, tap.ID) {
			continue
		}
		shown := m
		if i > 0 {
			// The task's reminder came again while the undo ran (a sweep
			// between the undo's write and this edit): the newer message
			// holds the buttons, as reminderCame leaves them.
			shown.Keyboard = nil
		}
		if err := b.send.edit(ctx, chat, rm.id, shown); err != nil {
			b.log.Warn("edit reminder after undo", "chat", chat, "message", rm.id, "err", err)
			continue
		}
		out = append(out, rm.id)
	}
	b.newerReminderCame(ctx, chat, t.ID, out)
	return out
}

// newerReminderCame takes the buttons off the reminder messages edited
// (tapsBack) if the task's reminder came again meanwhile: the reminder's
// delivery runs beside the tap, and when it listed the messages before
// an edit gave one its buttons back, it left them there.
func (b *Bot) newerReminderCame(ctx context.Context, chat nod.ChatID, taskID nod.TaskID, edited []int) {
	now := b.reminderMessages(ctx, chat, taskID, 0)
	for i, rm := range now {
		if i > 0 && slices.Contains(edited, rm.id) {
			b.send.editKeyboard(ctx, chat, rm.id, noButtons())
		}
	}
}

// dailyReview runs the chat's daily review: the /review turn, started by
// nod, so everything it proposes asks. Without proposals the agent's own
// line is shown, or nod's when it wrote none; a quiet chat hears nothing.
func (b *Bot) dailyReview(ctx context.Context, o nod.Owed) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.UpdateTimeout)
	defer cancel()
	loc, s := b.settings(ctx, o.ChatID, 0, "")
	if !b.sweeps.Review(ctx, o, s) {
		return
	}
	res, err := b.agent.Turn(ctx, nod.TurnRequest{Topic: o.Topic, Review: true, Daily: true, Group: o.ChatID.Group(), Lang: loc.Code(), Settings: s})
	if err != nil {
		b.log.Warn("daily review failed", "chat", o.ChatID, "err", err)
		b.delivered(ctx, o.ChatID, nod.OwedDaily, o.Ref) // tomorrow's comes as usual
		return
	}
	b.delivered(ctx, o.ChatID, nod.OwedDaily, o.Ref)
	text := strings.TrimSpace(res.Text)
	switch {
	case res.Set != nil || res.ZoneOffer != nil:
		// The same header as a review without proposals: the person sees
		// at once that nod, not they, started this.
		if text != "" {
			b.reply(ctx, o.Topic, loc.Text(formatting.DailySaid.With(text)))
		} else {
			b.reply(ctx, o.Topic, loc.Text(formatting.DailyProposed))
		}
		if res.Set != nil {
			b.showChangeSet(ctx, loc, *res.Set)
		}
		b.offerZone(ctx, loc, o.Topic, res.ZoneOffer)
	case s.DailyQuiet:
	case text != "":
		// The agent's one line: what it saw, or a question about an
		// overdue task it would not guess an answer to.
		b.reply(ctx, o.Topic, loc.Text(formatting.DailySaid.With(text)))
	default:
		b.reply(ctx, o.Topic, loc.Text(formatting.DailyNothing))
	}
	b.log.Info("daily review", "chat", o.ChatID, "proposed", res.Set != nil)
}

// onRemindDone marks a reminded task done: the person's own change,
// applied at once with its Undo on the reminder's message.
func (b *Bot) onRemindDone(ctx context.Context, p press) string {
	t, err := b.tasks.Task(ctx, p.chat, p.task())
	if err != nil {
		return b.reminderRefusal(p, err)
	}
	if no := b.othersReminder(ctx, p, t); no != "" {
		return no
	}
	return b.reminderTap(p, func() (nod.Applied, error) {
		return b.reminders.MarkDone(ctx, p.topic(), p.user, p.task(), p.loc.Zone())
	}, true)
}

// onSnooze moves a task's reminder an hour from now, or to tomorrow at
// its local time.
func (b *Bot) onSnooze(ctx context.Context, p press) string {
	t, err := b.tasks.Task(ctx, p.chat, p.task())
	if err != nil {
		return b.reminderRefusal(p, err)
	}
	if no := b.othersReminder(ctx, p, t); no != "" {
		return no
	}
	at := nod.SnoozeUntil(p.action.N, b.now(), t.RemindAt, p.loc.Zone())
	return b.reminderTap(p, func() (nod.Applied, error) { return b.reminders.Remind(ctx, p.topic(), p.user, p.task(), at) }, false)
}

// othersReminder refuses a tap on a reminder that another member of the
// group set, naming whose it is; "" when p's person may act on it. The
// storage's own check (confirm.Service) closes the race with a reminder
// set anew meanwhile.
func (b *Bot) othersReminder(ctx context.Context, p press, t nod.Task) string {
	if t.RemindBy == 0 || t.RemindBy == p.user {
		return ""
	}
	if name := b.nameOf(ctx, p.chat, t.RemindBy); name != "" {
		return p.loc.Notice(formatting.NoticeRemindWhose.With(name))
	}
	return p.loc.Notice(formatting.NoticeRemindForbidden)
}

func (b *Bot) reminderTap(p press, apply func() (nod.Applied, error), done bool) string {
	applied, err := apply()
	if err != nil {
		return b.reminderRefusal(p, err)
	}
	p.then(func(ctx context.Context) {
		whose := b.nameOf(ctx, p.chat, p.user) // the reminder's own person: othersReminder let no one else through
		m := p.loc.Day().ReminderSnoozed(applied.After, applied.Undo.ID, whose)
		if done {
			m = p.loc.Day().ReminderDone(applied.After, applied.Undo.ID, whose)
		}
		if err := b.send.edit(ctx, p.chat, p.msgID, m); err != nil {
			b.log.Warn("edit reminder", "chat", p.chat, "err", err)
		}
	})
	return ""
}

func (b *Bot) reminderRefusal(p press, err error) string {
	return b.explainAs(p.loc, err, reminderNotices, "reminder", "chat", p.chat)
}

// onLocation sets the chat's zone from a shared location, offline, with
// a receipt and Undo; a point at sea is asked about, not set.
func (b *Bot) onLocation(ctx context.Context, in incoming, lat, lng float64) {
	zone, sea, err := b.places.Zone(lat, lng)
	switch {
	case err != nil:
		b.log.Error("time zone of a location", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	case sea:
		b.reply(ctx, in.topic(), in.loc.Text(formatting.TzSea))
		return
	}
	before := b.zoneName(in.settings)
	if zone == before && in.settings != nil && in.settings.TimeZone != "" {
		b.reply(ctx, in.topic(), in.loc.Day().TimeZoneShow(zone, true, b.now()))
		return
	}
	if !b.mayChangeChat(ctx, in, "tz") {
		return
	}
	zc, err := b.days.SetTimeZone(ctx, in.chat, in.user, zone, b.opts.TimeZone, nod.ToolLocation, nil)
	if err != nil {
		b.log.Error("set time zone", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.reply(ctx, in.topic(), in.loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: zc.ID, Before: before, After: zc.After, Moved: zc.Moved}, b.now(), "", ""))
	if z, err := nod.LoadZone(zc.After); err == nil {
		in.text = sharedLocation // the message has no words: the agent reads what it was
		b.resume(ctx, in, z)
	}
}

// sharedLocation is what a shared location says in the conversation,
// where it answers the agent's "where are you?".
const sharedLocation = "📍 (shared my location)"

// offerZone shows a time zone the agent proposed, with a button to set
// it and one to keep the zone; nil shows nothing.
func (b *Bot) offerZone(ctx context.Context, loc *formatting.Locale, at nod.Topic, zc *nod.ZoneChange) {
	if zc != nil {
		b.reply(ctx, at, loc.Day().TimeZoneOffer(zc.Before, zc.After, zc.City, zc.ID, zc.Stay))
	}
}

// onZoneAccept sets the zone a proposal named: the person's tap, with a
// receipt and Undo in its place.
func (b *Bot) onZoneAccept(ctx context.Context, p press) string { return b.decideZone(ctx, p, true) }

// onZoneDecline keeps the chat's zone.
func (b *Bot) onZoneDecline(ctx context.Context, p press) string { return b.decideZone(ctx, p, false) }

// onZoneCity sets the zone of the city the person chose after /tz NAME.
// The proposal decides the zone and who may choose it; the button's
// city only names it in the receipt, and only when its zone is the
// proposal's.
func (b *Bot) onZoneCity(ctx context.Context, p press) string { return b.decideZone(ctx, p, true) }

func (b *Bot) decideZone(ctx context.Context, p press, accept bool) string {
	if !b.mayChange(ctx, p.chat, p.user, p.group) {
		return p.loc.Notice(formatting.AdminOnly.With("tz"))
	}
	zc, err := b.days.DecideZone(ctx, p.chat, p.user, p.action.ID, accept, b.opts.TimeZone)
	if err != nil {
		return b.explainAs(p.loc, err, zoneNotices, "decide time zone", "chat", p.chat)
	}
	before := zc.Before
	if before == "" {
		before = b.opts.TimeZone.String()
	}
	var city *nod.City
	if p.action.Kind == nod.ActZoneCity && b.places != nil {
		c, found, err := b.places.CityByID(p.action.N)
		if err != nil {
			b.log.Warn("city of a zone", "chat", p.chat, "err", err)
		}
		if found && c.Zone == zc.After {
			city = &c
		}
	}
	p.then(func(ctx context.Context) {
		m := p.loc.Text(formatting.TzKept)
		if accept {
			m = p.loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: zc.ID, Before: before, After: zc.After, Moved: zc.Moved, City: city, Stay: zc.Stay}, b.now(), "", "")
		}
		if err := b.send.edit(ctx, p.chat, p.msgID, m); err != nil {
			b.log.Warn("edit zone proposal", "chat", p.chat, "err", err)
		}
		if z, err := nod.LoadZone(zc.After); err == nil && p.action.Kind == nod.ActZoneCity && zc.Before == "" && !p.group {
			// The city the person picked after /tz NAME is their answer,
			// as the /tz itself would have been with one such city: a
			// turn, so one of the chat's jobs, in its order.
			b.job(p.chat, nil, nod.Topic{ChatID: p.chat, Thread: p.thread}, func(ctx context.Context) {
				b.resume(ctx, incoming{chat: p.chat, user: p.user, thread: p.thread, text: "/tz " + zc.After, loc: p.loc}, z)
			})
		}
	})
	return ""
}
