package formatting

import (
	"slices"
	"strings"

	"github.com/nodbot/nod"
)

// The templates of /audit.
var (
	auditTmpl   = define[[]auditLine]("audit")
	auditEmpty  = fixed("audit_empty")
	auditChange = define[auditTool]("audit_change")
	auditItems  = define[auditList]("audit_items")
	auditRemind = define[auditReminder]("audit_reminder")
)

func init() {
	partial[auditLine]("audit_what")
	partial[nod.Outcome]("outcome")
	partial[auditPerson]("audit_who")
	partial[auditPerson]("audit_whom")
}

// auditPerson is whom a row names. In a private chat every row is the
// reader's own ("you"); in a group it is the member by Name, "" when nod
// never learned it ("a member"), or, None, nobody's, as a daily review's
// proposal is.
type auditPerson struct {
	Group bool
	Name  string
	None  bool
}

// auditTool is a row's change said by its tool alone; Checked is the
// isChecked argument of a toggle (or a daily review's quiet), "true" or
// not; Value and Before, a setting's new and old value.
type auditTool struct {
	Tool          nod.Tool
	Checked       string
	By            auditPerson
	Value, Before string
}

// auditReminder is what a reminder's row did: At is the new time, ""
// when it cleared it; Snooze marks a reminder's ⏰, Moved a reminder that
// replaced another; Done says it as done ("moved"), not proposed ("move").
type auditReminder struct {
	At                  string
	Snooze, Moved, Done bool
}

// auditList is a row's change of N checklist items: the first Titles,
// and More left out.
type auditList struct {
	Tool   nod.Tool
	N      int
	Titles []string
	More   int
}

// auditLine is one audit row as a person reads it: when, who did what,
// the change in nod's words and the task's title.
type auditLine struct {
	At      string
	Who     string      // "you" (a tap), "request", "rule", "nod"
	By      auditPerson // whose tap, words or rule it was
	Outcome nod.Outcome
	Tool    nod.Tool
	Change  string // what the row changed, rendered; empty if unknown
	Task    string // the task's title, if known
	Mode    string // for mode rows
	Reason  string
	Quote   string // the person's words an explicit change quoted
	// Redacted marks a row whose content nod removed when it forgot its
	// person: it says no more.
	Redacted bool
}

// Audit lists a chat's latest audit entries for the person: what changed,
// on which task, who decided. Read-only look-ups are left out (they are in
// `nod audit export`). titles names the tasks the rows are about. names
// is nil in a private chat, where every row is the reader's; in a group
// it holds the names of the rows' members, by user id.
func (l *Locale) Audit(entries []nod.AuditEntry, titles map[nod.TaskID]string, names map[nod.UserID]string) Message {
	var lines []auditLine
	for _, a := range entries {
		if a.Tool == nod.ToolListTasks || a.Tool == nod.ToolGetTask {
			continue
		}
		by := auditPerson{Group: names != nil, Name: names[a.UserID], None: a.UserID == 0}
		lines = append(lines, l.auditLine(a, titles, by))
	}
	if len(lines) == 0 {
		return l.Text(auditEmpty)
	}
	return l.Text(auditTmpl.With(lines))
}

func (l *Locale) auditLine(a nod.AuditEntry, titles map[nod.TaskID]string, by auditPerson) auditLine {
	str := a.Arg
	line := auditLine{At: l.Stamp(a.At), By: by, Outcome: a.Outcome, Tool: a.Tool, Task: titles[nod.TaskID(str("task_id"))], Reason: a.Reason}
	switch {
	case a.UserConfirmed:
		line.Who = "you"
	case a.Verdict == "rule":
		line.Who, line.Reason = "rule", ""
	case strings.HasPrefix(a.Verdict, "explicit"):
		line.Who, line.Quote, line.Reason = "request", a.Reason, ""
	default:
		line.Who = "nod"
	}
	switch {
	case a.Redacted:
		return auditLine{At: line.At, By: auditPerson{Group: by.Group, None: true}, Outcome: a.Outcome, Tool: a.Tool, Redacted: true}
	case a.Tool == nod.ToolForget:
		line.Change = str("rows")
		return line
	case a.Tool == nod.ToolMode:
		line.Mode = str("mode")
		return line
	}
	if a.Outcome == nod.OutcomeUndone || a.Outcome == nod.OutcomeRedone {
		// An undo's row names the fields it put back, not the change's
		// values, which it does not carry.
		var names []string
		for _, f := range a.ArgList("fields") {
			if strings.HasPrefix(f, "checklist:") {
				f = string(nod.FieldChecklist)
			}
			if n := l.Field(nod.Field(f)); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		line.Change = strings.Join(names, ", ")
		return line
	}
	if a.Tool.External() {
		line.Change = auditCall(a)
		return line
	}
	value := ""
	switch a.Tool {
	case nod.ToolSetTitle, nod.ToolAddItem, nod.ToolCreateTask:
		value = str("title")
	case nod.ToolSetStatus:
		value = str("status")
	case nod.ToolSetPriority:
		value = str("priority")
	case nod.ToolUpdateEstimate:
		value = str("estimate_minutes")
	case nod.ToolUpdateDueDate:
		if v := str("due_date"); v != "null" {
			value = v
		}
	case nod.ToolSetRepeat:
		if v := str("repeat"); v != "null" {
			value = v
		}
	case nod.ToolAssignLabels:
		// As every other message shows a label set, whatever order the call gave.
		value = nod.Task{Labels: a.ArgList("labels")}.Value(nod.FieldLabels)
	case nod.ToolUpdateDescription:
		value = str("description")
	}
	switch a.Tool {
	case nod.ToolAddItems, nod.ToolUpdateItems, nod.ToolRemoveItems:
		titles := a.ArgTitles("items")
		shown := titles[:min(len(titles), 3)]
		line.Change = l.Render(auditItems.With(auditList{Tool: a.Tool, N: len(titles), Titles: shown, More: len(titles) - len(shown)}))
	case nod.ToolDeleteTask, nod.ToolRestoreTask, nod.ToolToggleItem, nod.ToolUpdateItem, nod.ToolRemoveItem, nod.ToolAnswerProposals, nod.ToolRule, nod.ToolSeed, nod.ToolExport:
		line.Change = l.Render(auditChange.With(auditTool{Tool: a.Tool, Checked: str("isChecked"), By: by}))
	case nod.ToolSetReminder:
		line.Change = l.auditReminder(a)
	case nod.ToolTZ, nod.ToolLocation, nod.ToolSetTimezone:
		line.Change = l.Render(auditChange.With(auditTool{Tool: a.Tool, Value: str("timezone"), Before: str("before")}))
	case nod.ToolDaily:
		line.Change = l.Render(auditChange.With(auditTool{Tool: a.Tool, Value: str("daily"), Checked: str("quiet")}))
	case nod.ToolAssignLabels:
		d := summaryData{Tool: a.Tool, Value: strings.Join(nod.ParseLabels(value), ", "),
			Added: strings.Join(a.ArgList("add"), ", "), Removed: strings.Join(a.ArgList("remove"), ", ")}
		line.Change = l.Render(summaryTmpl.With(d))
	default:
		line.Change = l.Changes().Summary(nod.ChangeItem{Tool: a.Tool, After: value, Summary: string(a.Tool)})
	}
	return line
}

// auditReminder says what a reminder's row did, at times in the chat's
// zone. A proposal's remind_at is the model's local time; an applied
// change's is RFC 3339. Rows written before "was" and "snooze" were
// recorded read as a reminder set.
func (l *Locale) auditReminder(a nod.AuditEntry) string {
	if !a.HasArg("remind_at") {
		return l.Render(auditChange.With(auditTool{Tool: a.Tool}))
	}
	r := auditReminder{Snooze: a.Arg("snooze") == "true", Moved: a.Arg("was") != "",
		Done: a.Outcome == nod.OutcomeExecuted || a.Outcome == nod.OutcomeConfirmed}
	if at := a.Arg("remind_at"); at != "" {
		r.At = at
		t, _, err := nod.ParseReminderValue(at)
		if err != nil {
			t, err = nod.ParseLocal(at, l.Zone())
		}
		if err == nil {
			r.At = l.Stamp(t)
		}
	}
	return l.Render(auditRemind.With(r))
}
