package formatting

// A Locale says the few things every message needs (dates, stamps,
// statuses, a template's text); what each part of nod says to the person
// is one of its views, reached as l.Tasks(), l.Changes() and so on. A
// view is a value holding its locale, so it is as cheap and as safe for
// concurrent use.

// Tasks renders tasks: the /tasks list, a task's card, the trash and a
// deletion's question.
type Tasks struct{ l *Locale }

// Tasks is the locale's view of tasks.
func (l *Locale) Tasks() Tasks { return Tasks{l} }

// Changes renders change sets and what became of them: the set with its
// buttons, receipts of changes applied at once, readings of an answer in
// words, and the mode that decides what is asked.
type Changes struct{ l *Locale }

// Changes is the locale's view of change sets and receipts.
func (l *Locale) Changes() Changes { return Changes{l} }

// Undo renders undo and redo: the Undo button, and the reports of an
// undo, a redo and an undo that came too late.
type Undo struct{ l *Locale }

// Undo is the locale's view of undo and redo.
func (l *Locale) Undo() Undo { return Undo{l} }

// Day renders the person's day: reminders and their buttons, the chat's
// time zone, and the daily review.
type Day struct{ l *Locale }

// Day is the locale's view of reminders, time zones and the daily review.
func (l *Locale) Day() Day { return Day{l} }

// Rules renders the rules that let a kind of change apply without
// asking: the offer, its answer and /rules.
type Rules struct{ l *Locale }

// Rules is the locale's view of rules.
func (l *Locale) Rules() Rules { return Rules{l} }
