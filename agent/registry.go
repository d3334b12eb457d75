package agent

import (
	"fmt"
	"strings"

	"github.com/nodbot/nod"
)

// Tool is one tool the agent may call. The registry, not the prompt,
// decides from Risk what needs confirmation.
type Tool struct {
	Name        nod.Tool
	Risk        nod.Risk
	Description string
	Params      map[string]any // JSON schema of the arguments; what each
	// argument means is package tools'
}

var (
	str     = map[string]any{"type": "string"}
	summary = map[string]any{"type": "string", "description": "Optional one-line summary of the change for the user."}
)

func object(props map[string]any, required ...string) map[string]any {
	props["human_summary"] = summary
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 { // "required": null is invalid JSON Schema
		o["required"] = required
	}
	return o
}

func enum(vals ...string) map[string]any { return map[string]any{"type": "string", "enum": vals} }

// registry lists every tool of the contract, in the order the model sees
// them.
var registry = []Tool{
	{Name: nod.ToolListTasks, Risk: nod.ReadOnly, Description: "List the chat's tasks a page at a time, oldest first, optionally filtered by a case-insensitive text query on title or description, by status, and by a label (case-insensitive). Returns {tasks, total, next_cursor}: total counts every match; pass next_cursor as cursor to read the next page (null: no more).",
		Params: map[string]any{"type": "object", "properties": map[string]any{"query": str, "status": enum(statusNames()...), "label": str,
			"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": nod.MaxPage, "description": fmt.Sprintf("Tasks per page, default %d.", nod.DefaultPage)},
			"cursor": map[string]any{"type": "string", "description": "The next_cursor of the page before."}}}},
	{Name: nod.ToolGetTask, Risk: nod.ReadOnly, Description: "Get one task with its checklist (each item with checked_by and checked_at). A repeating task stays open; its done_times are the times of its reminder the user marked done in the last 14 days.",
		Params: map[string]any{"type": "object", "properties": map[string]any{"task_id": str}, "required": []string{"task_id"}}},
	{Name: nod.ToolCreateTask, Risk: nod.Mutating, Description: "Create a task. Status starts OPEN, priority defaults to P2.",
		Params: object(map[string]any{"title": str, "description": str, "priority": enum("P0", "P1", "P2", "P3"),
			"estimate_minutes": map[string]any{"type": "integer", "minimum": 0}, "due_date": map[string]any{"type": []string{"string", "null"}, "description": "YYYY-MM-DD"},
			"labels": map[string]any{"type": "array", "items": str}}, "title")},
	{Name: nod.ToolSetTitle, Risk: nod.Mutating, Description: "Rename a task.",
		Params: object(map[string]any{"task_id": str, "title": str}, "task_id", "title")},
	{Name: nod.ToolUpdateDescription, Risk: nod.Mutating, Description: "Replace a task's description.",
		Params: object(map[string]any{"task_id": str, "description": str}, "task_id", "description")},
	{Name: nod.ToolSetStatus, Risk: nod.Mutating, Description: "Change a task's status. DONE on a task whose reminder repeats marks this time done, as its reminder's ✓ Done does: the task stays open and reminds at the next time (to end it for good, clear its repeat first). In a group, a task whose upcoming reminder another member set is theirs to close.",
		Params: object(map[string]any{"task_id": str, "status": enum(statusNames()...)}, "task_id", "status")},
	{Name: nod.ToolSetPriority, Risk: nod.Mutating, Description: "Change a task's priority (P0 most urgent).",
		Params: object(map[string]any{"task_id": str, "priority": enum("P0", "P1", "P2", "P3")}, "task_id", "priority")},
	{Name: nod.ToolUpdateEstimate, Risk: nod.Mutating, Description: "Set a task's estimate in minutes.",
		Params: object(map[string]any{"task_id": str, "estimate_minutes": map[string]any{"type": "integer", "minimum": 0}}, "task_id", "estimate_minutes")},
	{Name: nod.ToolUpdateDueDate, Risk: nod.Mutating, Description: "Set a task's due date (YYYY-MM-DD), or clear it with null.",
		Params: object(map[string]any{"task_id": str, "due_date": map[string]any{"type": []string{"string", "null"}, "description": "YYYY-MM-DD or null"}}, "task_id", "due_date")},
	{Name: nod.ToolSetReminder, Risk: nod.Mutating, Description: "Set when nod reminds the user of a task: a local date and time YYYY-MM-DDTHH:MM in the chat's time zone (see Today above), or null to clear it. A time the user gives in another place's clock (\"9 Berlin time\" while the chat is in London) is that place's local time with the place's IANA zone in brackets, e.g. 2026-12-03T09:00[Europe/Berlin], which nod names to the user (\"09:00 in Berlin\"); or with its UTC offset, e.g. 2026-12-03T09:00+01:00, when no place is known. It then stays at that moment when the chat's zone changes, where a time of the chat's own clock keeps its time of day in the new zone. A new time for such a reminder stays in that clock only if it is given with the zone or offset too. A repeating reminder follows the chat's clock (\"8am wherever I am\"), unless remind_at names a place's zone in brackets: then it repeats at that place's time (\"every Monday at 9 New York time\"), whatever the chat's zone; an offset alone with repeat places only its first time. A task has one reminder. In a group it is the reminder of whoever set it: it names them, and only they can move, clear or tap it. To repeat it, give repeat: an RFC 5545 RRULE read from remind_at's local time (FREQ=DAILY|WEEKLY|MONTHLY|YEARLY with INTERVAL, BYDAY, BYMONTHDAY, COUNT, UNTIL; nothing else), e.g. every weekday at 8 is remind_at the next weekday at 08:00 with FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR. Left out, a rule the task has stays (a one-off move); null stops repeating; give it again to change the time it repeats at.",
		Params: object(map[string]any{"task_id": str, "remind_at": map[string]any{"type": []string{"string", "null"}, "description": "YYYY-MM-DDTHH:MM local time (a time in another place's clock with its zone in brackets, …T09:00[Europe/Berlin], or its UTC offset), or null"},
			"repeat": map[string]any{"type": []string{"string", "null"}, "description": "RRULE such as FREQ=DAILY or FREQ=MONTHLY;BYMONTHDAY=1, or null"}}, "task_id", "remind_at")},
	{Name: nod.ToolAssignLabels, Risk: nod.Mutating, Description: "Change a task's labels: add and remove name the labels to add and to take away, the others stay; or labels, the full new set, replaces them all. Give add and remove unless the user asks to replace the set. A label is taken away at once only when the user's own words ask to remove it.",
		Params: object(map[string]any{"task_id": str, "labels": map[string]any{"type": "array", "items": str, "description": "The full new set; leave out when giving add or remove."},
			"add": map[string]any{"type": "array", "items": str}, "remove": map[string]any{"type": "array", "items": str}}, "task_id")},
	{Name: nod.ToolAddItems, Risk: nod.Mutating, Description: "Add items to a task's checklist.",
		Params: object(map[string]any{"task_id": str, "items": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "properties": map[string]any{"title": str}, "required": []string{"title"}}}}, "task_id", "items")},
	{Name: nod.ToolUpdateItems, Risk: nod.Mutating, Description: "Check, uncheck or rename checklist items (ids from get_task). Changing the checked state of an item the user set needs a reason of at least 20 characters citing evidence from after the user's checked_at.",
		Params: object(map[string]any{"task_id": str, "items": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "properties": map[string]any{"id": str,
				"isChecked": map[string]any{"type": "boolean", "description": "The new checked state (get_task calls it checked; either name works)."},
				"title":     str, "reason": str}, "required": []string{"id"}}}}, "task_id", "items")},
	{Name: nod.ToolRemoveItems, Risk: nod.Mutating, Description: "Remove items from a task's checklist (ids from get_task). Removing an item the user checked needs a reason of at least 20 characters citing evidence from after the user's checked_at.",
		Params: object(map[string]any{"task_id": str, "items": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "properties": map[string]any{"id": str, "reason": str}, "required": []string{"id"}}}}, "task_id", "items")},
	{Name: nod.ToolSetTimezone, Risk: nod.Mutating, Description: "Set the chat's time zone when the user says where they are (\"I'm in Cologne\"): an IANA name, or the city they named, in English or German, which nod looks up offline. A city that several places share is an error listing them: ask the user which one, then call again with the city and its country or state (\"Portland, Oregon\"). Dates and reminders are read in the zone, those of calls beside this one too (even while the zone waits for the user's tap), and those stay where they are set; the chat's other upcoming reminders keep their clock time in the new zone (the result lists them in reminders_kept_local, with their new times), except those given in another place's clock (set_task_reminder), which stay at their moment.",
		Params: object(map[string]any{"timezone": map[string]any{"type": "string", "description": "IANA name such as Europe/Berlin, or a city such as Cologne, München or \"Paris, France\""},
			"until": map[string]any{"type": []string{"string", "null"}, "description": "For a stay the user gives an end for (\"in Berlin till Sunday\"): when nod puts the chat back to the zone it has now (or to then), on its own, with a message that says so. A YYYY-MM-DD date goes back at that day's end; a YYYY-MM-DDTHH:MM is a local time in the zone being set. Leave it out for a zone that stays."},
			"then":  map[string]any{"type": []string{"string", "null"}, "description": "With until, when the chat goes somewhere else than the zone it has now at until (\"in Berlin till Sunday, I live in Lisbon\"): an IANA name or a city. To change only the end of the stay the chat is in, call with the same timezone and the new until: it still goes where it went."}}, "timezone")},
	{Name: nod.ToolAnswerProposals, Risk: nod.Decides, Description: "Pass on the user's decision on your pending proposal when they stated it in words nod could not read itself (\"3 bis 5 passt, 7 auch\", \"all but the title\"). Name items by the numbers the user sees. It applies only if the user's own words ask for exactly that; otherwise the user is shown your reading to accept. Never name items the user did not decide.",
		Params: object(map[string]any{"set": map[string]any{"type": "string", "description": "The proposal's id from your context; omit it for the proposal the user's message replies to, else their latest."},
			"confirm": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}, "reject": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
			"reason": map[string]any{"type": "string", "description": "The user's reason for the rejections, in their words."}})},
	{Name: nod.ToolDeleteTask, Risk: nod.Destructive, Description: "Delete a task (to the trash). Always asks the user to type the task's title.",
		Params: object(map[string]any{"task_id": str}, "task_id")},
}

func statusNames() []string {
	out := make([]string, len(nod.Statuses))
	for i, s := range nod.Statuses {
		out[i] = string(s)
	}
	return out
}

var toolsByName = map[nod.Tool]Tool{}

func init() {
	for _, t := range registry {
		toolsByName[t.Name] = t
	}
}

// aliases map names models commonly produce to the contract names. They
// are resolved before the policy is looked up, so an alias can never skip
// a confirmation.
var aliases = map[string]nod.Tool{
	"update_task_title":        nod.ToolSetTitle,
	"rename_task":              nod.ToolSetTitle,
	"set_task_description":     nod.ToolUpdateDescription,
	"update_task_status":       nod.ToolSetStatus,
	"update_task_priority":     nod.ToolSetPriority,
	"set_task_estimate":        nod.ToolUpdateEstimate,
	"set_task_due_date":        nod.ToolUpdateDueDate,
	"set_due_date":             nod.ToolUpdateDueDate,
	"set_reminder":             nod.ToolSetReminder,
	"update_task_reminder":     nod.ToolSetReminder,
	"set_timezone":             nod.ToolSetTimezone,
	"set_time_zone":            nod.ToolSetTimezone,
	"set_task_labels":          nod.ToolAssignLabels,
	"update_task_labels":       nod.ToolAssignLabels,
	"add_checklist_items":      nod.ToolAddItems,
	string(nod.ToolAddItem):    nod.ToolAddItems,
	string(nod.ToolUpdateItem): nod.ToolUpdateItems,
	string(nod.ToolRemoveItem): nod.ToolRemoveItems,
	string(nod.ToolSetRepeat):  nod.ToolSetReminder,
	"delete_checklist_items":   nod.ToolRemoveItems,
	"delete_checklist_item":    nod.ToolRemoveItems,
	"remove_task":              nod.ToolDeleteTask,
	"list_task":                nod.ToolListTasks,
	"search_tasks":             nod.ToolListTasks,
	"get_task_details":         nod.ToolGetTask,
	"functions.list_tasks":     nod.ToolListTasks,
	"functions.get_task":       nod.ToolGetTask,
	"functions.create_task":    nod.ToolCreateTask,
	"functions.delete_task":    nod.ToolDeleteTask,
	"functions.set_task_title": nod.ToolSetTitle,
}

// Lookup normalises a tool name (case, white space, aliases) and returns
// the tool, or false for a tool that does not exist and must never run.
func Lookup(name string) (Tool, bool) {
	n := nod.Tool(strings.ToLower(strings.TrimSpace(name)))
	if a, ok := aliases[string(n)]; ok {
		n = a
	}
	t, ok := toolsByName[n]
	return t, ok
}
