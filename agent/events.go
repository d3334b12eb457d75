package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// eventNotes tells the agent, in order, what the person did outside the
// conversation since its last turn (docs/design.md §6).
// In a group (group set), a mode change of another member than self is
// said to be theirs: modes are per person. Times are the chat's (zone),
// as everything else the agent is told.
func eventNotes(events []nod.Event, self nod.UserID, group bool, zone *time.Location) string {
	var b strings.Builder
	b.WriteString("Meanwhile, outside this conversation (oldest first):")
	for _, e := range events {
		note := eventNote(e, zone)
		if group && e.Kind == nod.EventMode && e.UserID != 0 && e.UserID != self {
			note = fmt.Sprintf("member %d switched their own mode to %s (modes are per person: the mode you work under in this turn is the one stated above)", e.UserID, e.Value)
		}
		fmt.Fprintf(&b, "\n- %s %s", e.At.In(zone).Format("2006-01-02 15:04"), note)
	}
	return b.String()
}

// eventNote says what happened in a line; texts are quoted typographically,
// so that a summary with quotes of its own reads without escapes.
func eventNote(e nod.Event, zone *time.Location) string {
	on := ""
	if e.Task != "" {
		on = fmt.Sprintf(" on task “%s”", e.Task)
	}
	switch e.Kind {
	case nod.EventConfirmed:
		return fmt.Sprintf("the user confirmed your proposal “%s”%s%s; it is applied", e.Summary, on, answeredIn(e.Words))
	case nod.EventRejected:
		s := fmt.Sprintf("the user rejected your proposal “%s”%s%s", e.Summary, on, answeredIn(e.Words))
		if r := strings.Join(strings.Fields(e.Reason), " "); r != "" {
			s += fmt.Sprintf(", saying “%s”", r)
		}
		return s
	case nod.EventUndone:
		return fmt.Sprintf("the user undid “%s”%s: that change is taken back; do not make it again unless the user asks anew", e.Summary, on)
	case nod.EventRedone:
		return fmt.Sprintf("the user redid “%s”%s after undoing it", e.Summary, on)
	case nod.EventDeleted:
		return fmt.Sprintf("the user deleted the task “%s” (it is in the trash)", e.Task)
	case nod.EventRestored:
		return fmt.Sprintf("the user restored the task “%s” from the trash", e.Task)
	case nod.EventTicked:
		return fmt.Sprintf("the user ticked “%s”%s", e.Value, on)
	case nod.EventUnticked:
		return fmt.Sprintf("the user unticked “%s”%s", e.Value, on)
	case nod.EventInterrupted:
		return fmt.Sprintf("nod stopped (it was restarted) before it answered the user's message “%s”; it told them so, with a receipt for any change already made, and asked them to send it again", e.Value)
	case nod.EventRemindDone:
		return fmt.Sprintf("the user marked the task “%s” done from its reminder", e.Task)
	case nod.EventSnoozed:
		at := e.Value
		if t, err := time.Parse(time.RFC3339, e.Value); err == nil {
			at = t.In(zone).Format("2006-01-02 15:04")
		}
		return fmt.Sprintf("the user had the reminder of “%s” come again at %s", e.Task, at)
	case nod.EventMode:
		if e.Reason != "" {
			return fmt.Sprintf("the chat switched to mode %s (%s)", e.Value, e.Reason)
		}
		return fmt.Sprintf("the user switched the chat to mode %s", e.Value)
	}
	return string(e.Kind)
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
