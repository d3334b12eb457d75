package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// eventNotes tells the agent, in order, what people did outside the
// conversation since its last turn (docs/design.md §6). In a group (group
// set) each note names who did it, as the conversation's lines do, so
// that the agent never takes one member's tap for another's; a mode
// change of another member than self is said to be theirs alone. Times
// are the chat's (zone), as everything else the agent is told.
func eventNotes(events []nod.Event, self nod.UserID, group bool, zone *time.Location) string {
	var b strings.Builder
	// The zone is named: times read across a change of zone otherwise.
	fmt.Fprintf(&b, "Meanwhile, outside this conversation (oldest first, times in %s):", zone)
	for _, e := range events {
		who := "the user"
		if group && e.UserID != 0 {
			who = memberLabel(e.Name, e.UserID)
		}
		note := eventNote(e, who, zone)
		if group && e.Kind == nod.EventMode && e.UserID != 0 && e.Reason == "" {
			note = fmt.Sprintf("%s switched their own mode to %s", who, e.Value)
			if e.UserID != self {
				note += " (modes are per person: the mode you work under in this turn is the one stated above)"
			}
		}
		fmt.Fprintf(&b, "\n- %s %s", e.At.In(zone).Format("2006-01-02 15:04"), note)
	}
	return b.String()
}

// memberLabel names a member of a group as the conversation's lines do
// ("Alice (1001)"), or by id when nod never saw their name.
func memberLabel(name string, id nod.UserID) string {
	if name == "" {
		return fmt.Sprintf("member %d", id)
	}
	return fmt.Sprintf("%s (%d)", name, id)
}

// eventNote says what who did in a line; texts are quoted typographically,
// so that a summary with quotes of its own reads without escapes.
func eventNote(e nod.Event, who string, zone *time.Location) string {
	// A task is named by its title, and by its id where the event knows
	// it: two tasks can share a title.
	task := "“" + e.Task + "”"
	if e.TaskID != "" {
		task += fmt.Sprintf(" (id %s)", e.TaskID)
	}
	on := ""
	if e.Task != "" {
		on = " on task " + task
	}
	switch e.Kind {
	case nod.EventConfirmed:
		return fmt.Sprintf("%s confirmed your proposal “%s”%s%s; it is applied", who, e.Summary, on, answeredIn(e.Words))
	case nod.EventRejected:
		s := fmt.Sprintf("%s rejected your proposal “%s”%s%s", who, e.Summary, on, answeredIn(e.Words))
		if r := strings.Join(strings.Fields(e.Reason), " "); r != "" {
			s += fmt.Sprintf(", saying “%s”", r)
		}
		return s
	case nod.EventUndone:
		if e.Tool == nod.ToolCreateTask {
			return fmt.Sprintf("%s undid “%s”%s: the task is in the trash now; do not make it again unless asked anew (to have it back, the ↪️ Redo on nod's “Undone” message puts it back as it was when it went to the trash, its reminder and other changes included)", who, e.Summary, on)
		}
		return fmt.Sprintf("%s undid “%s”%s: that change is taken back; do not make it again unless asked anew", who, e.Summary, on)
	case nod.EventRedone:
		if e.Tool == nod.ToolCreateTask {
			return fmt.Sprintf("%s redid “%s”%s after undoing it: the task is back on the list", who, e.Summary, on)
		}
		return fmt.Sprintf("%s redid “%s”%s after undoing it", who, e.Summary, on)
	case nod.EventDeleted:
		return fmt.Sprintf("%s deleted the task %s, which is in the trash now", who, task)
	case nod.EventDeletionKept:
		line := fmt.Sprintf("%s kept the task %s: its deletion was cancelled (%s); it was not deleted", who, task, e.Reason)
		if e.Reason == nod.KeptInWords {
			// Played, the model's reply opened with nod's own words again.
			line += ", which nod has told them already in a message of its own (do not say it again)"
		}
		if e.Value != "" {
			line += fmt.Sprintf(". The deletions of %s are still to be asked, one at a time, next; each question has ✗ Keep it", e.Value)
		}
		return line
	case nod.EventRestored:
		return fmt.Sprintf("%s restored the task %s from the trash", who, task)
	case nod.EventTicked:
		return fmt.Sprintf("%s ticked “%s”%s", who, e.Value, on)
	case nod.EventUnticked:
		return fmt.Sprintf("%s unticked “%s”%s", who, e.Value, on)
	case nod.EventInterrupted:
		return fmt.Sprintf("nod stopped (it was restarted) before it answered the user's message “%s”; it told them so, with a receipt for any change already made, and asked them to send it again", e.Value)
	case nod.EventRemindDone:
		if strings.Contains(e.Reason, "card") { // the audit's reason: "the card's ✓ Done"
			return fmt.Sprintf("%s marked the task %s done on its card", who, task)
		}
		return fmt.Sprintf("%s marked the task %s done from its reminder", who, task)
	case nod.EventReopened:
		return fmt.Sprintf("%s reopened the task %s on its card (status %s)", who, task, e.Value)
	case nod.EventSnoozed:
		return fmt.Sprintf("%s snoozed the reminder of %s to %s: it goes out again then", who, task, local(e.Value, zone, "2006-01-02 15:04"))
	case nod.EventOccurrenceDone:
		s := fmt.Sprintf("%s marked this time of the repeating task %s done", who, task)
		if e.Reason != "" {
			s = fmt.Sprintf("%s marked the repeating task %s done for %s", who, task, local(e.Reason, zone, weekday))
		}
		return s + fmt.Sprintf("; the task stays open, its next reminder is %s", local(e.Value, zone, weekday))
	case nod.EventCallRan:
		s := fmt.Sprintf("%s confirmed your call %s; it ran", who, callNamed(e.Summary))
		if e.Value != "" {
			s += fmt.Sprintf(" and returned: %s", e.Value)
		}
		return s
	case nod.EventCallFailed:
		return fmt.Sprintf("%s confirmed your call %s; it did not succeed: %s", who, callNamed(e.Summary), e.Reason)
	case nod.EventCallUnknown:
		return fmt.Sprintf("nod stopped while your call %s was under way, so whether it happened is unknown; the user was told so. nod never sends it again: do not call it again unless the user asks after checking", callNamed(e.Summary))
	case nod.EventZone:
		return zoneNote(e, who)
	case nod.EventMode:
		if e.Reason != "" {
			return fmt.Sprintf("the chat switched to mode %s (%s)", e.Value, e.Reason)
		}
		return fmt.Sprintf("%s switched the chat to mode %s", who, e.Value)
	}
	return string(e.Kind)
}

// zoneNote says how who set the chat's time zone outside a turn: what
// became of the agent's offer, or the zone they set themselves.
func zoneNote(e nod.Event, who string) string {
	zone := func(z string) string { return cmp.Or(z, "nod's default") }
	var s string
	switch e.Reason {
	case string(nod.OutcomeConfirmed):
		s = fmt.Sprintf("%s confirmed your proposal to set the chat's time zone to %s (it was %s): their dates and times are read in it from now on", who, zone(e.Value), zone(e.Summary))
	case string(nod.OutcomeRejected):
		return fmt.Sprintf("%s declined your proposal to set the chat's time zone to %s: it stays as it was; do not propose it again unless asked", who, zone(e.Value))
	case string(nod.OutcomeUndone):
		s = fmt.Sprintf("%s undid the time zone change: the chat's time zone is %s again", who, zone(e.Value))
		if e.Value == e.Summary { // a stay's end moved in its own zone, undone
			s = fmt.Sprintf("%s undid the change of the stay's end: the chat stays on %s time, and its stay ends as it did before that change (see the time zone line above)", who, zone(e.Value))
		}
	case string(nod.ToolLocation):
		s = fmt.Sprintf("%s shared their location, which set the chat's time zone to %s (it was %s)", who, zone(e.Value), zone(e.Summary))
	default:
		s = fmt.Sprintf("%s set the chat's time zone to %s with /tz (it was %s)", who, zone(e.Value), zone(e.Summary))
	}
	switch {
	case e.Reminders == 0:
	case e.Reason == string(nod.OutcomeUndone):
		// An undo puts back what its change moved, and nothing else.
		s += fmt.Sprintf("; the %d reminders the change had moved are back at their times before it, the others stay", e.Reminders)
	case e.Reminders == 1:
		s += fmt.Sprintf("; the one upcoming reminder kept its clock time, now in %s", zone(e.Value))
	default:
		s += fmt.Sprintf("; the %d upcoming reminders kept their clock times, now in %s", e.Reminders, zone(e.Value))
	}
	return s
}

// weekday is how a repeating reminder's times are told: its day counts.
const weekday = "Mon 2006-01-02 15:04"

// local is an RFC 3339 time (a reminder's value, its clock's place too)
// as the chat reads it, in layout, or as it is if it is not one.
func local(s string, zone *time.Location, layout string) string {
	if t, _, err := nod.ParseReminderValue(s); err == nil {
		return t.In(zone).Format(layout)
	}
	return s
}

// callNamed reads an external call's event summary, its tool and its
// arguments as stored, as nod's own summary of the call.
func callNamed(summary string) string {
	tool, args, _ := strings.Cut(summary, " ")
	return "“" + externalSummary(nod.Tool(tool), json.RawMessage(args)) + "”"
}

// maxWords bounds the person's answer quoted in a note.
const maxWords = 200

// answeredIn says how nod read a decision the person wrote, so that the
// agent can see a misreading and say so.
func answeredIn(words string) string {
	w := strings.Join(strings.Fields(words), " ")
	if w == "" {
		return ""
	}
	if r := []rune(w); len(r) > maxWords {
		w = string(r[:maxWords]) + "…"
	}
	return fmt.Sprintf(", by answering “%s” (nod read that answer itself)", w)
}
