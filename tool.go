package nod

// Tool names what made a change or an audit row: a tool of the agent's
// contract (docs/design.md §2), one of the per-item tools a change set
// splits a checklist batch into, or an action nod takes on the person's
// tap or command. Audit rows, undo entries and change items store it.
type Tool string

// The agent's tools.
const (
	ToolListTasks         Tool = "list_tasks"
	ToolGetTask           Tool = "get_task"
	ToolCreateTask        Tool = "create_task"
	ToolSetTitle          Tool = "set_task_title"
	ToolUpdateDescription Tool = "update_task_description"
	ToolSetStatus         Tool = "set_task_status"
	ToolSetPriority       Tool = "set_task_priority"
	ToolUpdateEstimate    Tool = "update_task_estimate"
	ToolUpdateDueDate     Tool = "update_task_due_date"
	ToolSetReminder       Tool = "set_task_reminder"
	ToolAssignLabels      Tool = "assign_task_labels"
	ToolAddItems          Tool = "add_multiple_checklist_items"
	ToolUpdateItems       Tool = "update_checklist_items"
	ToolRemoveItems       Tool = "remove_checklist_items"
	ToolSetTimezone       Tool = "set_chat_timezone"
	ToolAnswerProposals   Tool = "answer_proposals"
	ToolDeleteTask        Tool = "delete_task"
)

// One checklist item of a batch, as a change set holds it.
const (
	ToolAddItem    Tool = "add_checklist_item"
	ToolUpdateItem Tool = "update_checklist_item"
	ToolRemoveItem Tool = "remove_checklist_item"
	// ToolSetRepeat is the repeat part of a set_task_reminder call: its
	// own item, shown, applied and undone beside the reminder's time.
	ToolSetRepeat Tool = "set_task_repeat"
)

// What nod does on the person's tap or command, and its own records.
const (
	ToolRestoreTask Tool = "restore_task"
	ToolToggleItem  Tool = "toggle_checklist_item"
	ToolTZ          Tool = "tz"       // the chat's zone set with /tz
	ToolLocation    Tool = "location" // the chat's zone set from a shared location
	ToolMode        Tool = "mode"
	ToolRule        Tool = "rule"
	ToolDaily       Tool = "daily"
	ToolInterrupted Tool = "interrupted" // a turn cut short by a stop
	ToolSeed        Tool = "seed"        // tasks imported or seeded, not changed by anyone in the chat
	ToolExport      Tool = "export"      // the person's data sent to them (/export)
	ToolForget      Tool = "forget"      // nod forgot a person: the rows it redacted
)
