package storage

// DB is nod's storage: it opens, migrates and closes the database, and
// hands out one repository per aggregate, all on the same connections.
// It is safe for concurrent use.
type DB struct {
	*core
	tasks        Tasks
	changeSets   ChangeSets
	deletions    Deletions
	conversation Conversation
	outbox       Outbox
	messages     Messages
	audit        Audit
	schedule     Schedule
	settings     Settings
	rules        Rules
	undo         Undo
	people       People
	exports      Exports
	calls        Calls
}

func newDB(c *core) *DB {
	return &DB{core: c, tasks: Tasks{c}, changeSets: ChangeSets{c}, deletions: Deletions{c},
		conversation: Conversation{c}, outbox: Outbox{c}, messages: Messages{c}, audit: Audit{c},
		schedule: Schedule{c}, settings: Settings{c}, rules: Rules{c}, undo: Undo{c}, people: People{c}, exports: Exports{c}, calls: Calls{c}}
}

// Tasks keeps tasks, their pages and the trash, and applies edits to them.
type Tasks struct{ *core }

// ChangeSets keeps change sets: proposing, deciding, the decisions and
// their reasons, answers read in words, expiry.
type ChangeSets struct{ *core }

// Deletions keeps the deletions waiting for their typed title.
type Deletions struct{ *core }

// Conversation keeps the turns: what the person said, what nod answered,
// and what happened in the chat meanwhile.
type Conversation struct{ *core }

// Outbox keeps the messages nod owes, and the updates it has handled.
type Outbox struct{ *core }

// Messages keeps which Telegram message shows what: the message ids of
// sets, cards, rules and deletions, and the buttons each message carries.
type Messages struct{ *core }

// Audit keeps the audit log: its rows, its signed head, its verification.
type Audit struct{ *core }

// Schedule keeps what is due when: time zones, daily reviews, reminders.
type Schedule struct{ *core }

// Settings keeps each chat's settings (mode, language, breaker) and its
// members' names.
type Settings struct{ *core }

// Rules keeps the rules a person accepted for a kind of change.
type Rules struct{ *core }

// Undo keeps undo entries and undoes them.
type Undo struct{ *core }

// Exports reads a person's data whole, for /export: every aggregate's
// rows of one chat, or of one person in it, in one read.
type Exports struct{ *core }

// Tasks returns the tasks repository.
func (db *DB) Tasks() *Tasks { return &db.tasks }

// ChangeSets returns the change sets repository.
func (db *DB) ChangeSets() *ChangeSets { return &db.changeSets }

// Deletions returns the pending deletions repository.
func (db *DB) Deletions() *Deletions { return &db.deletions }

// Conversation returns the conversation repository.
func (db *DB) Conversation() *Conversation { return &db.conversation }

// Outbox returns the outbox.
func (db *DB) Outbox() *Outbox { return &db.outbox }

// Messages returns the repository of Telegram messages and their buttons.
func (db *DB) Messages() *Messages { return &db.messages }

// Audit returns the audit log.
func (db *DB) Audit() *Audit { return &db.audit }

// Schedule returns the schedule.
func (db *DB) Schedule() *Schedule { return &db.schedule }

// Settings returns the chat settings repository.
func (db *DB) Settings() *Settings { return &db.settings }

// Rules returns the rules repository.
func (db *DB) Rules() *Rules { return &db.rules }

// Undo returns the undo repository.
func (db *DB) Undo() *Undo { return &db.undo }

// Exports returns the repository that reads a person's data.
func (db *DB) Exports() *Exports { return &db.exports }
