package nod

import (
	"strings"
	"time"
)

// PersonData counts what nod keeps about one person: what /forget
// deletes. Their private chat goes whole; in groups, what is theirs goes
// (their lines of the conversation, their modes, rules, proposals and
// the reminders they set), and the groups' tasks stay.
type PersonData struct {
	// Tasks are the private chat's tasks, the trash's included.
	Tasks int
	// Messages are conversation lines: the private chat's, and theirs
	// in groups.
	Messages int
	// Proposals are their change sets, open or decided.
	Proposals int
	// Rules are their learned rules, offered or in force.
	Rules int
	// Reminders are those they set: on the private chat's tasks, and on
	// groups' tasks (cleared there; the tasks stay).
	Reminders int
	// Groups are the groups where nod keeps something of theirs;
	// GroupTasks those groups' tasks, which stay.
	Groups, GroupTasks int
	// AuditRows are the audit rows whose content is removed; each stays
	// as a redacted link of its chain.
	AuditRows int
}

// ForgetRequest is a person's /forget waiting for them to type the
// phrase that confirms it, in their private chat.
type ForgetRequest struct {
	UserID UserID
	ChatID ChatID
	// MessageID is the prompt that asks for the phrase, edited once it
	// is answered, cancelled or expired; 0 until it is shown.
	MessageID int
	ExpiresAt time.Time
}

// ForgetOutcome is what a text did to a waiting /forget.
type ForgetOutcome int

// What a text did to a waiting /forget.
const (
	// ForgetNone: none waits; the text is an ordinary message.
	ForgetNone ForgetOutcome = iota
	// ForgetExpired: one waited, but its time had run out: it ends, and
	// the text is an ordinary message.
	ForgetExpired
	// ForgetCancelled: the text was not the phrase: nothing is deleted.
	ForgetCancelled
	// ForgetDone: the phrase; nod forgot the person.
	ForgetDone
)

// ForgetAnswer is what a text did to the person's waiting /forget.
type ForgetAnswer struct {
	Outcome ForgetOutcome
	Request ForgetRequest
	// Bare marks a cancelling text that was a bare yes or no: it ends
	// there, as a deletion's does; any other is then read as usual.
	Bare bool
	// Forgotten is what was deleted, with ForgetDone.
	Forgotten PersonData
}

// ForgetPhrase reports whether text is one of phrases, the words that
// confirm a /forget: compared ignoring case, surrounding white space and
// the runs of it between words.
func ForgetPhrase(text string, phrases []string) bool {
	said := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	for _, p := range phrases {
		if said != "" && said == strings.Join(strings.Fields(strings.ToLower(p)), " ") {
			return true
		}
	}
	return false
}
