package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/tools"
)

// prepareZone validates set_chat_timezone: a zone that loads, or a city
// that is one place, and is not the chat's zone already unless the call
// sets the stay in it (how long, or where the chat goes then).
func (t *turn) prepareZone(start time.Time, tool Tool, a tools.Args) (*proposal, string) {
	name, _, err := a.Str("timezone", true)
	if err == nil {
		var (
			zone *time.Location
			city *nod.City
		)
		if zone, city, err = t.resolveZone(name); err == nil {
			var stay nod.Stay
			if stay, err = t.readStay(a, zone); err == nil {
				if out := t.unchanged(zone, stay); out != "" {
					t.record(start, tool.Name, a.JSON(), nod.OutcomeBlocked, out)
					return nil, out
				}
				return &proposal{start: start, tool: tool, args: a, zone: zone, city: city, stay: stay}, ""
			}
		}
	}
	t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, nod.Detail(err))
	return nil, errorJSON(err)
}

// unchanged is why a call that sets the chat's zone as it is changes
// nothing ("" when it does): one without until, or one whose stay has
// nowhere to go.
func (t *turn) unchanged(zone *time.Location, stay nod.Stay) string {
	switch {
	case zone.String() != t.zone.String():
		return ""
	case stay.Until.IsZero():
		return fmt.Sprintf("Skipped: the chat's time zone is already %s.", zone)
	case stay.Back == "":
		return fmt.Sprintf("Skipped: the chat's time zone is already %s, and until alone would go back to it. Give then: the zone the chat goes to at until (where the user lives).", zone)
	}
	return ""
}

// readStay reads set_chat_timezone's until and then: when the chat
// leaves zone, and for where (then, a zone or a city; "": the zone it
// has now). then without until is an error, as is then naming zone. A
// stay in the zone the chat is staying in already ("till Tuesday, not
// Sunday") moves its end and goes where it went.
func (t *turn) readStay(a tools.Args, zone *time.Location) (nod.Stay, error) {
	until, err := t.readUntil(a, zone)
	if err != nil {
		return nod.Stay{}, err
	}
	then, _, err := a.Str("then", false)
	if err != nil {
		return nod.Stay{}, err
	}
	if strings.TrimSpace(then) == "" {
		stay := nod.Stay{Until: until}
		if !until.IsZero() && zone.String() == t.zone.String() {
			stay.Back = t.stayBack
		}
		return stay, nil
	}
	if until.IsZero() {
		return nod.Stay{}, a.Errorf("then", "needs until: when the chat goes to %s", then)
	}
	back, _, err := t.resolveZone(then)
	switch {
	case err != nil:
		return nod.Stay{}, a.Errorf("then", "%s", nod.Detail(err))
	case back.String() == zone.String():
		return nod.Stay{}, a.Errorf("then", "is %s, the zone being set: leave until and then out for a zone that stays", back)
	}
	return nod.Stay{Until: until, Back: back.String()}, nil
}

// readUntil reads set_chat_timezone's until: when the chat goes back to
// the zone it has now, a local date and time in zone, the zone being set
// (a date alone: at that day's end), after now and within a year; zero
// when it is left out or null.
func (t *turn) readUntil(a tools.Args, zone *time.Location) (time.Time, error) {
	if !a.Present("until") {
		return time.Time{}, nil
	}
	s, _, err := a.Str("until", true)
	if err != nil {
		return time.Time{}, err
	}
	s = strings.TrimSpace(s)
	at, err := nod.ParseLocal(s, zone)
	if err != nil {
		day, derr := time.ParseInLocation(nod.DateLayout, s, zone)
		if derr != nil {
			return time.Time{}, a.Errorf("until", "must be a YYYY-MM-DD date (the chat goes back at that day's end) or a YYYY-MM-DDTHH:MM local time in %s, or null", zone)
		}
		at = time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, zone)
	}
	now := t.a.now()
	switch {
	case !at.After(now):
		return time.Time{}, a.Errorf("until", "is %s, which has passed (now %s)", at.In(zone).Format("2006-01-02T15:04"), now.In(zone).Format("2006-01-02T15:04"))
	case at.After(now.AddDate(1, 0, 0)):
		return time.Time{}, a.Errorf("until", "is more than a year ahead; leave it out for a zone that stays")
	}
	return nod.Stamp(at), nil
}

// resolveZone reads set_chat_timezone's name: an IANA zone, else a city
// (with the zone at it). A name several places share is an error that
// lists them, for the agent to ask which.
func (t *turn) resolveZone(name string) (*time.Location, *nod.City, error) {
	zone, err := nod.LoadZone(name)
	if err == nil || t.a.cities == nil {
		return zone, nil, err
	}
	m, ferr := t.a.cities.FindCity(name)
	switch {
	case ferr != nil:
		t.a.log.Error("find a city", "chat", t.req.ChatID, "err", ferr)
		return nil, nil, fmt.Errorf("looking up the place %q failed; ask the user for their IANA time zone", name)
	case len(m.Cities) == 0:
		return nil, nil, fmt.Errorf("%q is neither an IANA time zone such as Europe/Berlin nor a city nod knows: %w", name, nod.ErrInvalid)
	case !m.Found():
		var b strings.Builder
		for i, c := range m.Cities {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s (%s)", nod.Labels(m.Cities, "en")[i], c.Zone)
		}
		more := ""
		if m.Total > len(m.Cities) {
			more = fmt.Sprintf(", and %d smaller ones", m.Total-len(m.Cities))
		}
		return nil, nil, fmt.Errorf("%q is more than one place: %s%s. Nothing was set: ask the user which one they mean, then call set_chat_timezone with the city and its country or state, or its IANA zone: %w", name, b.String(), more, nod.ErrInvalid)
	}
	c := m.Cities[0]
	if zone, err = nod.LoadZone(c.Zone); err != nil {
		return nil, nil, err
	}
	return zone, &c, nil
}

// mayChangeChat reports whether the turn's person may change the
// group's time zone, asked once a turn.
func (t *turn) mayChangeChat(ctx context.Context) bool {
	if t.mayChange == nil {
		ok := t.req.MayChangeChat != nil && t.req.MayChangeChat(ctx)
		t.mayChange = &ok
	}
	return *t.mayChange
}

// commitZone sets the chat's zone when the person asked for it in their
// own words (or the chat trusts the agent); it has a receipt with Undo.
// Otherwise it is proposed: a zone is a setting of the whole chat, not a
// task's field, so the proposal is a message of its own with a button to
// set it, beside the turn's change set. In a group only its owner and
// administrators may change it (Telegram is asked at the first call);
// anyone else's call changes nothing and the agent is told why.
func (t *turn) commitZone(ctx context.Context, p *proposal, v confidence.Verdict) string {
	entry := nod.AuditEntry{Tool: p.tool.Name, Args: p.args.JSON(), Verdict: verdictName(v)}
	var why string
	switch {
	case t.req.InGroup() && t.req.Speaker == "": // a review's request names nobody
		why = "Not changed: in a group only its owner and administrators can change the time zone, with /tz " + p.zone.String() + "."
	case t.req.InGroup() && !t.mayChangeChat(ctx):
		why = "Not changed: in this group only its owner and administrators can change the time zone, and " + t.req.Speaker + " is not one of them. Tell the user so: an administrator can say where the group is, or send /tz " + p.zone.String() + "."
	case t.a.zones == nil:
		why = "Not changed: setting the time zone is unavailable; the user can send /tz " + p.zone.String() + "."
	}
	if why != "" {
		entry.Outcome, entry.Error = nod.OutcomeBlocked, why
		t.recordEntry(p.start, entry)
		return why
	}
	if !v.Explicit() || t.req.Review {
		if t.zoneOffer != nil {
			return "Not queued: a time zone is already proposed in this turn."
		}
		by := t.req.UserID
		if t.req.Review {
			by = 0 // whoever of the chat reads it first
		}
		zc, err := t.a.zones.ProposeZone(ctx, t.req.ChatID, by, p.zone.String(), p.stay)
		if err != nil {
			t.a.log.Error("propose time zone", "chat", t.req.ChatID, "err", err)
			return errorJSON(fmt.Errorf("set_chat_timezone could not be proposed: %s", nod.Detail(err)))
		}
		if zc.Before == "" {
			zc.Before = t.a.opts.TimeZone.String()
		}
		zc.City = p.city
		t.zoneOffer = &zc
		return resultQueued
	}
	zc, err := t.a.zones.SetTimeZoneUntil(ctx, t.req.ChatID, t.req.UserID, p.zone.String(), t.a.opts.TimeZone, p.tool.Name, slices.Collect(maps.Keys(t.keptReminders())), p.stay)
	if err != nil {
		if !errors.Is(err, nod.ErrInvalid) {
			t.a.log.Error("set time zone", "chat", t.req.ChatID, "err", err)
		}
		entry.Outcome, entry.Error = nod.OutcomeFailed, nod.Detail(err)
		t.recordEntry(p.start, entry)
		return errorJSON(fmt.Errorf("set_chat_timezone could not be applied: %s", nod.Detail(err)))
	}
	if zc.Before == "" {
		zc.Before = t.a.opts.TimeZone.String()
	}
	zc.City = p.city
	t.zoneChange, t.zoneQuote = &zc, v.Quote
	t.zone = p.zone
	t.stayBack, t.stayUntil = "", p.stay.Until // any zone change ends the stay before it
	if !p.stay.Until.IsZero() {
		t.stayBack = zc.BackFrom(zc.Before)
	}
	res := zoneResult{Timezone: zc.After, Previous: zc.Before, Now: todayLine(t.a.now(), p.zone), Kept: movedJSON(zc.Moved, p.zone)}
	if p.city != nil {
		res.City = p.city.Label("en", true)
	}
	if !p.stay.Until.IsZero() {
		res.Until = p.stay.Until.In(p.zone).Format(time.RFC3339)
		res.Then = fmt.Sprintf("at until, nod puts the chat back to %s on its own, with a message that says so; any zone change before then cancels that", zc.BackFrom(zc.Before))
	}
	res.IntoStay, res.OutOfStay = t.crossed(zc.Crossed)
	return string(tools.MustJSON(res))
}

// crossed splits the reminders a moved end of the stay put on its other
// side: those now in the stay, at their clock time in its zone, and those
// now after it, at their clock time at home. Played, the model told a
// person 7:00 at home, moved the end past it, and was not told that the
// reminder now went off at 7:00 in the stay's zone.
func (t *turn) crossed(rs []nod.MovedReminder) (into, out *crossing) {
	for _, r := range rs {
		if home, back, ok := t.atHome(r.At); ok {
			if out == nil {
				out = &crossing{Note: fmt.Sprintf("the stay now ends before these reminders, which went off in %s time: each now goes off at remind_at, its clock time at home (%s); tell the user", t.zone, back)}
			}
			out.Reminders = append(out.Reminders, movedTask{TaskID: r.TaskID, Title: r.Title, RemindAt: zoned(home, back)})
			continue
		}
		if into == nil {
			into = &crossing{Note: fmt.Sprintf("the stay now ends after these reminders, which went off at their clock time at home: each now goes off at remind_at, its clock time in %s; tell the user", t.zone)}
		}
		into.Reminders = append(into.Reminders, movedTask{TaskID: r.TaskID, Title: r.Title, RemindAt: zoned(r.At, t.zone)})
	}
	return into, out
}

// crossing is reminders that a moved end of the stay put on its other
// side, and what that means for them.
type crossing struct {
	Note      string      `json:"note"`
	Reminders []movedTask `json:"reminders"`
}

// zoneResult is set_chat_timezone's result once applied. Kept names the
// chat's other upcoming reminders, which kept their clock times: each
// now goes off at that time in the new zone.
type zoneResult struct {
	Timezone string      `json:"timezone"`
	City     string      `json:"city,omitempty"`
	Previous string      `json:"previous"`
	Now      string      `json:"now"`
	Kept     []movedTask `json:"reminders_kept_local"`
	Until    string      `json:"until,omitempty"`
	Then     string      `json:"then,omitempty"`
	// The stay's end alone moved (its zone is the chat's already).
	IntoStay  *crossing `json:"reminders_now_in_stay,omitempty"`
	OutOfStay *crossing `json:"reminders_now_after_stay,omitempty"`
}

// movedTask is a reminder a zone change moved, as the model reads it:
// remind_at as get_task gives it, in the new zone.
type movedTask struct {
	TaskID   nod.TaskID `json:"task_id"`
	Title    string     `json:"title"`
	RemindAt string     `json:"remind_at"`
}

func movedJSON(rs []nod.MovedReminder, zone *time.Location) []movedTask {
	out := make([]movedTask, 0, len(rs)) // [] rather than null: none moved
	for _, r := range rs {
		out = append(out, movedTask{TaskID: r.TaskID, Title: r.Title, RemindAt: r.At.In(zone).Format(time.RFC3339)})
	}
	return out
}

// afterStay says when task's reminder goes off if the chat's stay ends
// before it: a reminder in the chat's own clock keeps its clock time in
// the zone the stay goes back to, so "Monday at 9", set in Berlin till
// Sunday, is 9 at home, not the +01:00 remind_at reads in now. "" for
// any other reminder.
func (t *turn) afterStay(task nod.Task) string {
	if task.RemindAt == nil || task.RemindClock != nil {
		return ""
	}
	at, back, ok := t.atHome(*task.RemindAt)
	if !ok {
		return ""
	}
	return fmt.Sprintf("the chat goes back to %s at %s, before this reminder, which keeps its clock time: it goes off at %s (%s time)",
		back, zoned(t.stayUntil, t.zone), zoned(at, back), back)
}

// atHome is when a moment of the chat's clock at or after its stay's
// end goes off once the stay has gone back: the same clock time in the
// zone it goes back to. false without a stay, or before its end.
func (t *turn) atHome(at time.Time) (time.Time, *time.Location, bool) {
	if t.stayBack == "" || at.Before(t.stayUntil) {
		return time.Time{}, nil, false
	}
	back, err := nod.LoadZone(t.stayBack)
	if err != nil {
		return time.Time{}, nil, false
	}
	l := at.In(t.zone)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), 0, 0, back), back, true
}

// homeLine adds to a reminder's line for the classifier when it goes
// off after the chat's stay has gone back: "(Europe/Berlin)" alone read
// as 9 in Berlin for a Monday the person is home in Lisbon.
func (t *turn) homeLine(p *proposal) string {
	for _, pc := range p.changes {
		if pc.c.Field() != nod.FieldReminder {
			continue
		}
		if at, clock, err := nod.ParseReminderValue(pc.target); err == nil && clock == nil {
			if home, back, ok := t.atHome(at); ok {
				return fmt.Sprintf("; the chat's stay ends before it, back to %s, where it goes off at %s", back, home.Format("2006-01-02T15:04"))
			}
		}
	}
	return ""
}

// reading is the zone the person's dates and times are read in: the one
// they named in this turn (set_chat_timezone, applied or waiting for
// their tap), else the chat's. "I'm in Hamburg, remind me at 9" means 9
// in Hamburg, even when both calls come in one step.
func (t *turn) reading() *time.Location {
	if t.named != nil {
		return t.named
	}
	return t.zone
}

// keepNamedReminders records, on the zone the turn proposed, the
// reminders it read in that zone: they mean that zone's clock already,
// and accepting it must not move them again. A failure is logged: the
// reminders then keep their clock times as any other does.
func (t *turn) keepNamedReminders(ctx context.Context) {
	if t.zoneOffer == nil || t.named == nil || t.named.String() != t.zoneOffer.After {
		return
	}
	if err := t.a.zones.KeepLocal(ctx, t.req.ChatID, t.zoneOffer.ID, t.keptReminders()); err != nil {
		t.a.log.Error("keep reminders local", "chat", t.req.ChatID, "err", err)
	}
}

// keptReminders are the reminders the turn read in the zone the person
// named, by task, at the moments they may be at for the zone to leave
// them: those of the tasks it changed or proposed to change
// (namedReminders), and of the tasks it created with one since.
func (t *turn) keptReminders() map[nod.TaskID][]time.Time {
	kept := maps.Clone(t.namedReminders)
	for _, r := range t.receipts[min(t.namedAt, len(t.receipts)):] {
		if r.Item.NewTask != nil && r.Item.NewTask.RemindAt != nil {
			if kept == nil {
				kept = map[nod.TaskID][]time.Time{}
			}
			kept[r.Item.TaskID] = []time.Time{*r.Item.NewTask.RemindAt}
		}
	}
	return kept
}

// readInNamed notes a reminder change read in the zone the person named
// in this turn, with the moment it sets (none for one it clears), even
// when the task's reminder is there already: the words that set that
// zone set this reminder in it too. The moment the task's reminder is at
// now is noted as well: while the change waits for a tap it is still
// there, and a zone accepted first must not move it, or the change would
// find the reminder changed since.
func (t *turn) readInNamed(c tools.Call, task *nod.Task, target string) {
	if t.named == nil || task == nil || c.Field() != nod.FieldReminder || target == "" {
		return
	}
	at, _, err := nod.ParseReminderValue(target)
	if err != nil {
		return
	}
	if t.namedReminders == nil {
		t.namedReminders = map[nod.TaskID][]time.Time{}
	}
	t.namedReminders[task.ID] = []time.Time{at}
	if task.RemindAt != nil && !task.RemindAt.Equal(at) {
		t.namedReminders[task.ID] = append(t.namedReminders[task.ID], *task.RemindAt)
	}
}

// nameZone notes a zone the step's calls name, before any of them is read.
// In a group only a zone its owner or an administrator names is read: a
// member's own place does not move the group's times, and a reminder
// read in it would move again, an hour off, when the group's zone is set
// (its reminders keep their clock times).
func (t *turn) nameZone(ctx context.Context, calls []nod.ToolCall) {
	for _, c := range calls {
		if nod.Tool(c.Name) != nod.ToolSetTimezone {
			continue
		}
		a, err := tools.Decode(nod.ToolSetTimezone, c.Arguments)
		if err != nil {
			continue
		}
		if name, _, err := a.Str("timezone", true); err == nil {
			if z, _, err := t.resolveZone(name); err == nil && (!t.req.InGroup() || t.req.Speaker != "" && t.mayChangeChat(ctx)) {
				if t.named == nil {
					t.namedAt = len(t.receipts)
				}
				t.named = z
			}
		}
	}
}

// zoneNote is added to the result of the turn's first call that writes a
// date or time while the chat has no zone and the agent was never told to
// ask: it is told now, and the chat records it, so that it asks once
// rather than on every date (the system prompt says when it was told).
func (t *turn) zoneNote(ctx context.Context, p *proposal) string {
	if !t.askZone {
		return ""
	}
	if p.zone != nil || t.named != nil {
		t.askZone = false // the person said where they are
		return ""
	}
	if !writesTime(p) {
		return ""
	}
	t.askZone = false
	first, err := t.a.zones.AskedZone(ctx, t.req.ChatID)
	if err != nil {
		t.a.log.Warn("zone asked", "chat", t.req.ChatID, "err", err)
		return ""
	}
	if !first {
		return ""
	}
	if t.req.InGroup() {
		return fmt.Sprintf("Note: nobody has said where this group is, so this is read in nod's default zone (%s). Unless you asked already in this conversation, ask now, once, where the group is; its owner or an administrator can set it in words (set_chat_timezone) or with /tz. You will not be told again.", t.zone)
	}
	return fmt.Sprintf("Note: the user has not said where they are, so this is read in nod's default zone (%s). Unless you asked already in this conversation, ask them now, once, where they are, and set it with set_chat_timezone when they say; you will not be told again.", t.zone)
}

// writesTime reports whether a call sets a due date or a reminder.
func writesTime(p *proposal) bool {
	for _, k := range []string{"due_date", "remind_at"} {
		if v, ok := p.args.Raw(k); ok && string(v) != "null" && string(v) != `""` {
			return true
		}
	}
	return false
}
