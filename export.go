package nod

import "iter"

// ExportScope is whose data an export holds (/export, docs/design.md
// §15). Everything of a private chat is its person's; in a group only
// what is the person's own (Own): the tasks they created, the reminders
// they set, their audit rows and their own settings.
type ExportScope struct {
	ChatID ChatID
	UserID UserID
	Own    bool
}

// ExportCounts says how many tasks, reminders and audit rows an
// export's sequences hold.
type ExportCounts struct {
	Tasks, Reminders, Audit int
}

// Export is a person's data as one read of the database saw it: every
// part of it, counts included, is of the same moment. The settings are
// read whole; the tasks (with their checklists, trashed ones too, oldest
// first), the reminders (tasks that have one, as they fall due) and the
// audit rows (oldest first) are read from the database as they are walked,
// each as often as needed, only while the read lasts: a chat of any size
// is exported without holding it in memory.
type Export struct {
	Scope ExportScope
	// Settings are the chat's with the person's mode. In a group (Own)
	// only the person's own are filled: their mode and breaker, and the
	// daily review when they turned it on; TimeZone is always the
	// chat's, the zone every local time is read in.
	Settings ChatSettings
	// Rules are the person's learned rules in force.
	Rules     []Rule
	Counts    ExportCounts
	Tasks     iter.Seq2[Task, error]
	Reminders iter.Seq2[Task, error]
	Audit     iter.Seq2[AuditEntry, error]
}
