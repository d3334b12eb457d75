package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/repeat"
)

// Prompt budgets: the prompt is resent on every step.
const (
	promptTasks        = 50
	promptDecisions    = 20
	promptDecisionSize = 2000 // bytes, about 500 tokens
	promptPending      = 10
	// promptKinds decisions are read to find kinds of change the person
	// keeps rejecting.
	promptKinds = 50
)

const rules = `You are nod, a task assistant in a Telegram chat. You manage the user's tasks only through the tools.
Rules:
- Use ids exactly as list_tasks or get_task return them; never invent ids.
- Call a mutating tool only for changes the user asked for or that clearly help. The system decides what needs the user's confirmation: when a tool says "Proposal queued for user review.", the change is waiting for the user's tap; do not claim it was applied. When it returns the task, the change was applied at once and the user sees its receipt.
- Propose each field of a task at most once per turn. Do not repeat proposals the user rejected (their latest decisions, when there are any, are listed below) unless the task has changed or the user asks.
- Checklist items carry checked_by and checked_at. Never change the checked state of an item the user set (checked_by "user") on your own without a reason of at least 20 characters citing evidence from after its checked_at (null: never ticked, so any evidence counts). Items you added count as the user's once they confirmed them.
- delete_task always needs the user's typed confirmation, which nod asks for in its own message right after your reply: do not ask for it or describe it; say the task goes to the trash once they confirm. Deleting a task closes your waiting proposals for it. A deleted task stays in the trash for 30 days; you cannot restore it, but the user can, with the Undo button on the deletion's message or with /trash: when they want that task back, point them there rather than recreating it. When they now ask in their own words for a task of that title (after undoing its creation, say), it is a new task: create it.
- Where things appear: receipts of changes applied at once come first, then your reply, then one message with the proposals you queued in this turn, numbered, with buttons: say "below" for those. Proposals from earlier turns are in earlier messages, above.
- The tasks listed below, and your waiting proposals when there are any, are as they were when this turn began; tool results in this turn are newer.
- You act only when the user writes: a tap on a proposal does not wake you. Never promise to do something once they tap ("as soon as it exists, I'll add the checklist"); say what they can ask for next instead.
- Text you write beside tool calls reaches the user after the receipts of what applied, in one message with your final reply: do not narrate what you are doing ("Setting…", "Adding…"), and do not say it again in the reply: when it said all there is to say, your reply may be empty. You write it before knowing whether a change applies at once or waits for the user, so say what you propose ("I suggest P1"), never that you did it. When a call beside it waits for the user's tap or is refused, the user never sees that text (its result says so): say in your reply what they need to know.
- When the user answers a waiting proposal in words and nod did not act on it itself (e.g. "3 to 5 fine, 7 too"), pass their decision on with answer_proposals, naming items by the numbers the user sees. Never decide items the user did not name, and never confirm one they turned down, asked about or put off ("2 later", "nicht 2"): nod refuses such a call.
- The user has commands you cannot run for them: /daily HH:MM (a daily review of their tasks by you at that time, every day), /tz (their time zone), /mode, /undo, /trash, /rules, /audit, /pending, /tasks, /lang, /help. When they ask for what one does, point them to it rather than saying it cannot be done.
- Keep replies short and plain; the user reads them on a phone. Name statuses in the chat's language as a person would ("open", "in progress"), not as the codes tools use (OPEN, IN_PROGRESS).`

// writePending lists the proposals still waiting, numbered as people see
// them. In a group, this turn's person sees theirs (and a review's, which
// anyone may decide) apart from other members' ones, which say whose they
// are and are not this person's to answer.
func writePending(b *strings.Builder, open []nod.ChangeSet, req nod.TurnRequest, titles map[nod.TaskID]string, withdrawn []nod.ItemRef) {
	group := req.Speaker != ""
	lines := 0
	for _, mine := range []bool{true, false} {
		if !mine && !group {
			break // a private chat's proposals are all its person's
		}
		head := false
		for _, s := range open {
			if group && mine != (s.UserID == 0 || s.UserID == req.UserID) {
				continue
			}
			for _, it := range s.Items {
				if it.Status != nod.ItemPending || lines == promptPending || slices.Contains(withdrawn, nod.ItemRef{SetID: s.ID, N: it.N}) {
					continue
				}
				switch {
				case head:
				case mine:
					b.WriteString("\nYour proposals still waiting for the user, numbered as the user sees them (do not propose them again):\n")
				default:
					b.WriteString("\nProposals waiting for other members of the group: only the member named can decide them; never answer them for this turn's person, and do not propose them again:\n")
				}
				head = true
				fmt.Fprintf(b, "- proposal %s, item %d: %s", s.ID, it.N, it.Summary)
				if title := titles[it.TaskID]; title != "" {
					fmt.Fprintf(b, " (task %q)", title)
				}
				if !mine {
					fmt.Fprintf(b, " (waiting for member %d)", s.UserID)
				}
				b.WriteByte('\n')
				lines++
			}
		}
	}
}

// systemPrompt tells the agent today's date, the rules and the mode it
// works under, the chat's tasks that matter most and how many it has, and
// its latest decisions. Its proposals still waiting leave out those this
// turn withdraws. It is written from what the turn opened with.
func (a *Agent) systemPrompt(ctx context.Context, req nod.TurnRequest, settings nod.ChatSettings, zone *time.Location, withdrawn []nod.ItemRef, op nod.Opening) (string, error) {
	var b strings.Builder
	b.Grow(len(rules) + 4096) // the rules, then the chat's part: grown once, not doubled from empty
	a.writeRules(&b, req, settings, zone)
	a.writeTasks(&b, op.Focus, zone, req.InGroup())
	titles, err := a.titlesFor(ctx, req.ChatID, op.Focus.Tasks, op.Open, op.Decisions)
	if err != nil {
		return "", fmt.Errorf("system prompt: %w", err)
	}
	writePending(&b, op.Open, req, titles, withdrawn)
	a.writeDecisions(&b, req, op.Decisions, titles)
	return b.String(), nil
}

// notSaid and notSaidGroup start the prompt's line on a chat whose zone
// nobody set.
const (
	notSaid      = "The user has not said where they are; this is nod's default zone."
	notSaidGroup = "Nobody has said where this group is; this is nod's default zone."
)

// writeRules writes the rules and the setting they are read in: today,
// the chat's zone, the group, the mode and the language.
func (a *Agent) writeRules(b *strings.Builder, req nod.TurnRequest, settings nod.ChatSettings, zone *time.Location) {
	b.WriteString(rules)
	// How a rule comes about, so that "always do that" gets a true answer:
	// in a play-test the agent pointed to /rules, which cannot make one.
	fmt.Fprintf(b, "\n- /rules only lists and stops the rules you learned: no one writes a rule. When the user wants a kind of change made without asking (\"always do that\"), tell them that once they confirm the same kind of change %d times in a row (the same tool; for status and priority, the same value), each in a different proposal, you offer them a rule that applies such changes without asking for %d days; /rules shows how far they are toward each kind.",
		nod.RuleStreak, int(nod.RuleLifetime.Hours()/24))
	fmt.Fprintf(b, "\n- One turn's proposals hold at most %d items, each checklist item counting as one, and each field a change sets (a repeating reminder is two: its time and its repeat): propose what matters most first, and offer the rest for a later turn.", nod.MaxItems)
	now := a.now()
	fmt.Fprintf(b, "\n\n%s\n", todayLine(now, zone))
	if nod.SmallHours(now, zone) {
		b.WriteString(nod.SmallHoursNote + " Read their words so, and say which date you read.\n")
	}
	// In a group the zone is the whole group's: its owner and
	// administrators set it, and a question asks where the group is.
	group := req.InGroup()
	switch {
	case settings.TimeZone != "" && settings.ZoneUntil != nil:
		// A stay set for a while: told, or the model says it cannot
		// switch back, or switches back twice.
		fmt.Fprintf(b, "This zone is for a while: on %s (%s) nod puts the chat back to %s on its own, and the upcoming reminders keep their clock times then, as with any zone change.\n",
			settings.ZoneUntil.In(zone).Format("Monday 2006-01-02 15:04"), zone, zoneName(settings.ZoneBack, a.opts.TimeZone))
	case settings.TimeZone != "":
	case settings.ZoneAsked != nil && group:
		fmt.Fprintf(b, notSaidGroup+" You were told to ask on %s: do not ask again. Read dates and times in this zone until its owner or an administrator sets it (in words: set_chat_timezone; or with /tz, or by sharing a location).\n", settings.ZoneAsked.In(zone).Format(nod.DateLayout))
	case settings.ZoneAsked != nil:
		fmt.Fprintf(b, notSaid+" You were told to ask them on %s: do not ask again. Read their dates and times in this zone until they say (in words: set it with set_chat_timezone; or with /tz, or by sharing their location).\n", settings.ZoneAsked.In(zone).Format(nod.DateLayout))
	case group:
		b.WriteString(notSaidGroup + " When someone gives a date or time (a reminder, \"tomorrow\"), ask once where the group is before relying on it; never guess it. Only the group's owner and administrators can set its zone: in words (set_chat_timezone, whose result says if the person may not) or with /tz.\n")
	default:
		b.WriteString(notSaid + " When they give a date or time (a reminder, \"tomorrow\"), ask once where they are before relying on it, and set it with set_chat_timezone when they say; never guess it.\n")
	}
	if req.Speaker != "" {
		fmt.Fprintf(b, "This is a group chat: every user message starts with its speaker's name and id. This turn is for %s: act on their words. Other members' messages are context, not requests from them; a change is made for the person who asked, and only they can confirm it.\n", req.Speaker)
	}
	b.WriteString(modeNote(settings, a.now(), zone))
	if req.Speaker != "" {
		b.WriteString("Modes are per person in this group: this is the mode of the person this turn is for.\n")
	}
	lang := req.Lang
	if lang == "" {
		lang = "en"
	}
	fmt.Fprintf(b, "The chat's language is %q: reply in it, unless the user writes in another language, and write every reason you give in tool calls in it too, to the user, who reads it as you wrote it (\"You said the scope freeze is done\", not \"User said …\").\n", lang)
}

// writeTasks lists the tasks that matter most, one line each, after how
// many the chat has and where the others are found. A group's tasks are
// the group's, whoever added them.
func (a *Agent) writeTasks(b *strings.Builder, focus nod.TaskPage, zone *time.Location, group bool) {
	tasks := focus.Tasks
	whose, has := "The user's", "The user has"
	if group {
		whose, has = "The group's", "The group has"
	}
	switch {
	case focus.Total == 0:
		fmt.Fprintf(b, "\n%s no tasks yet.\n", has)
	case focus.Total == len(tasks):
		fmt.Fprintf(b, "\n%s tasks (%d, those that matter most now first; call get_task for details):\n", whose, len(tasks))
	default:
		fmt.Fprintf(b, "\n%s %d tasks. These %d matter most now (overdue, due within a week, in progress, then recently changed); list_tasks finds the others by query or status, or pages through all of them (pass its next_cursor as cursor); call get_task for details:\n", has, focus.Total, len(tasks))
	}
	titles := make(map[string]int, len(tasks))
	for _, t := range tasks {
		titles[nod.FoldText(t.Title)]++
	}
	for _, t := range tasks {
		fmt.Fprintf(b, "- %s %q %s %s", t.ID, t.Title, t.Status, t.Priority)
		if titles[nod.FoldText(t.Title)] > 1 { // which is older, when the person says so
			fmt.Fprintf(b, " added %s", t.CreatedAt.In(zone).Format(nod.ReminderLayout))
		}
		if t.DueDate != "" {
			fmt.Fprintf(b, " due %s", t.DueDate)
		}
		if len(t.Labels) > 0 {
			fmt.Fprintf(b, " labels %s", strings.Join(t.Labels, ","))
		}
		if t.RemindAt != nil {
			fmt.Fprintf(b, " reminder %s", t.RemindAt.In(zone).Format(nod.ReminderLayout))
			if group && t.RemindBy != 0 {
				// Whose it is: only they move it (or close the task) while
				// it is to come; played, the model had to recall it.
				fmt.Fprintf(b, " set by member %d", t.RemindBy)
			}
			switch {
			case t.ReminderSent(a.now()):
				b.WriteString(" (sent")
				if t.RepeatsAfterSent(a.now()) { // not ticked off: its next, as /tasks shows
					if next, ok := repeat.NextOf(t.Repeat, zone, a.now()); ok {
						fmt.Fprintf(b, "; next %s", next.In(zone).Format(nod.ReminderLayout))
					}
				}
				b.WriteString(")")
			case !t.RemindAt.After(a.now()):
				b.WriteString(" (not sent: closed before it was due)")
			case t.ReminderSilent(a.now()):
				b.WriteString(" (silent: the task is closed)")
			}
			rule, err := repeat.Read(t.Repeat)
			if t.RemindClock != nil {
				// Told, or the model would read a zone change as moving it.
				stays := "it stays at that moment when the zone changes"
				switch {
				case err == nil && rule.Zone != "":
					stays = "it repeats at that place's time, whatever the chat's zone"
				case err == nil:
					stays = "this time only: the rule repeats on the chat's clock"
				}
				fmt.Fprintf(b, " (given as %s in another place's clock: %s)", nod.ReminderValue(*t.RemindAt, t.RemindClock), stays)
			}
			if t.Repeat != "" {
				// With its time of day: a daily rule moved to 07:30 is the
				// same RRULE as the 08:00 it was.
				fmt.Fprintf(b, " repeat %s", repeat.Describe(t.Repeat))
			}
		}
		if n := len(t.Checklist); n > 0 {
			done := 0
			for _, it := range t.Checklist {
				if it.Checked {
					done++
				}
			}
			fmt.Fprintf(b, " checklist %d/%d", done, n)
		}
		b.WriteByte('\n')
	}
}

// titlesFor returns the titles of the listed tasks and of those the
// pending proposals and the latest decisions name: they may name tasks
// the listing leaves out.
func (a *Agent) titlesFor(ctx context.Context, chatID nod.ChatID, tasks []nod.Task, open []nod.ChangeSet, ds []nod.Decision) (map[nod.TaskID]string, error) {
	titles := make(map[nod.TaskID]string, len(tasks))
	for _, t := range tasks {
		titles[t.ID] = t.Title
	}
	var missing []nod.TaskID
	for _, s := range open {
		for _, it := range s.Items {
			if _, ok := titles[it.TaskID]; !ok && it.Status == nod.ItemPending && it.TaskID != "" {
				missing = append(missing, it.TaskID)
			}
		}
	}
	for _, d := range ds[:min(len(ds), promptDecisions)] {
		if _, ok := titles[d.TaskID]; !ok && d.TaskID != "" {
			missing = append(missing, d.TaskID)
		}
	}
	if len(missing) > 0 {
		more, err := a.tasks.TaskTitles(ctx, chatID, missing)
		if err != nil {
			return nil, err
		}
		for id, title := range more {
			titles[id] = title
		}
	}
	return titles, nil
}

// writeDecisions lists the latest decisions within their budget, and the
// kinds of change the person (in a group, this turn's) keeps rejecting.
func (a *Agent) writeDecisions(b *strings.Builder, req nod.TurnRequest, ds []nod.Decision, titles map[nod.TaskID]string) {
	if len(ds) > 0 {
		if req.InGroup() {
			// Each member decides their own proposals: one member's no is not
			// another's.
			b.WriteString("\nThe latest decisions on your proposals in this chat, newest first, each with the member who made it (by id, as in the speakers' lines):\n")
		} else {
			b.WriteString("\nThe user's latest decisions on your proposals, newest first:\n")
		}
		size := 0
		for _, d := range ds[:min(len(ds), promptDecisions)] {
			line := decisionLine(d, titles[d.TaskID], req.InGroup())
			if size += len(line); size > promptDecisionSize {
				break
			}
			b.WriteString(line)
		}
	}
	var user nod.UserID
	if req.Speaker != "" {
		user = req.UserID // in a group, what this person turned down
	}
	if kinds := avoidedKinds(ds, a.now().Add(-rejectionMemory), user); len(kinds) > 0 {
		fmt.Fprintf(b, "\nThe user rejected these kinds of change at least twice: %s. Do not propose changes of these kinds on your own; when the user asks for one in their own words, make it: their request overrides the rejections.\n", strings.Join(kinds, "; "))
	}
}

// modeNote tells the agent the mode it works under for this person, what
// it means, and why it is in force when the circuit breaker set it (until
// when in the chat's zone, as today is given).
func modeNote(s nod.ChatSettings, now time.Time, zone *time.Location) string {
	var b strings.Builder
	switch s.Effective(now) {
	case nod.ModeAlways:
		if s.Mode != nod.ModeAlways {
			fmt.Fprintf(&b, "Mode: ask for everything, until %s (%s). The user undid %d changes that applied without asking within %s, so nod now asks them to confirm every change, even one they ask for plainly; their chosen mode, %s, comes back then, or earlier with /mode. If they wonder why you ask, say so.\n",
				s.BreakerUntil.In(zone).Format("Monday 15:04"), zone, nod.BreakerUndos, nod.BreakerWindow, s.Mode)
		} else {
			b.WriteString("Mode: always. The user chose to confirm every change: everything you change waits for their tap, even what they ask for plainly.\n")
		}
	case nod.ModeTrusted:
		b.WriteString("Mode: trusted. The user chose to let your changes apply at once without asking; deletions still need their typed confirmation.\n")
	default:
		b.WriteString("Mode: smart. A change the user plainly asks for in their own words applies at once, with a receipt and Undo; what you infer or suggest waits for their confirmation.\n")
	}
	b.WriteString("A change the user rejected or undid is not made again on your own; when they now ask for it in their own words, make it.\n")
	return b.String()
}

// decisionLine renders one decision for the prompt's decision
// history (docs/design.md §4), naming the task it was about.
func decisionLine(d nod.Decision, task string, group bool) string {
	line := fmt.Sprintf("- %s: %s", d.Verdict, d.Summary)
	whose := "the user's"
	if group && d.UserID != 0 {
		line = fmt.Sprintf("- %s %s: %s", memberLabel("", d.UserID), d.Verdict, d.Summary)
		whose = "their"
	}
	if task != "" {
		line += fmt.Sprintf(" on task %q", task)
	}
	if d.Undone {
		line += " (undone since)"
	}
	if d.Trashed && d.Tool != nod.ToolDeleteTask {
		line += " (the task is in the trash now)"
	}
	if r := strings.Join(strings.Fields(d.Reason), " "); r != "" {
		line += fmt.Sprintf(" (%s reason: %q)", whose, r)
	}
	return line + "\n"
}

// rezoned is system, written before the turn set the chat's zone to
// zone, as it reads once it did: its clock line in the new zone, and no
// longer saying the person has not said where they are. The tasks'
// reminders keep their clock times in the new zone, so their lines hold.
func rezoned(system string, now time.Time, zone *time.Location) string {
	start := strings.Index(system, "\n\nToday is ")
	if start < 0 {
		return system
	}
	start += 2
	end := start + strings.IndexByte(system[start:], '\n')
	if end < start {
		return system
	}
	line := todayLine(now, zone) + " The user set this zone in this turn."
	rest := system[end+1:]
	if strings.HasPrefix(rest, notSaid) || strings.HasPrefix(rest, notSaidGroup) {
		if n := strings.IndexByte(rest, '\n'); n >= 0 {
			rest = rest[n+1:]
		}
	}
	return system[:start] + line + "\n" + rest
}

// todayLine tells the agent where in its day the person is: local date,
// weekday, time and zone, which "today", "tomorrow" and "Friday" mean.
func todayLine(now time.Time, zone *time.Location) string {
	return nod.TodayIs(now, zone) + "."
}

// dueNote lists, for a review, the tasks overdue, due today and due in
// the coming week by the chat's local date: what it looks at first.
func dueNote(tasks []nod.Task, now time.Time, zone *time.Location) string {
	today := nod.LocalDate(now, zone)
	week := now.In(zone).AddDate(0, 0, 7).Format(nod.DateLayout)
	var overdue, due, soon []string
	for _, t := range tasks {
		if t.DueDate == "" || t.Status == nod.StatusDone || t.Status == nod.StatusRejected {
			continue
		}
		name := fmt.Sprintf("%s %q", t.ID, t.Title)
		switch {
		case t.DueDate < today:
			overdue = append(overdue, name)
		case t.DueDate == today:
			due = append(due, name)
		case t.DueDate <= week:
			soon = append(soon, name)
		}
	}
	var b strings.Builder
	for _, g := range []struct {
		what  string
		tasks []string
	}{{"Overdue", overdue}, {"Due today", due}, {"Due within a week", soon}} {
		if len(g.tasks) > 0 {
			fmt.Fprintf(&b, "%s: %s.\n", g.what, strings.Join(g.tasks, ", "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Look at these first:\n" + b.String()
}

// zoneName is a chat's stored zone as the model reads it: def's name for
// "", the default.
func zoneName(stored string, def *time.Location) string {
	if stored == "" {
		return def.String()
	}
	return stored
}
