package nod

import "crypto/rand"

// NewID returns a random id of 10 lowercase base32 characters (50 bits):
// short enough for a model to copy, long enough never to collide or be
// guessed.
func NewID() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789" // no l, o, 0, 1
	var b [10]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[b[i]%32]
	}
	return string(b[:])
}

// ChatID is a Telegram chat's id; UserID a Telegram user's. They are
// apart as types so that passing one for the other does not compile.
type (
	ChatID int64
	UserID int64
)

// Group reports whether the chat has members other than one person:
// Telegram gives groups, supergroups and channels negative ids and a
// private chat its person's (positive) id.
func (c ChatID) Group() bool { return c < 0 }

// The ids of nod's records, apart as types so that passing one kind for
// another does not compile. Each is a NewID string; an id from outside
// (callback data, a tool's arguments) is converted once, where it enters.
type (
	// SetID is a change set's id.
	SetID string
	// UndoID is an undo entry's id.
	UndoID string
	// RuleID is a learned rule's id.
	RuleID string
	// TaskID is a task's id.
	TaskID string
	// ItemID is a checklist item's id.
	ItemID string
	// DeletionID is a deletion's id while it waits for its typed title.
	DeletionID string
)
