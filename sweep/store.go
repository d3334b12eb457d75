package sweep

import (
	"context"
	"time"

	"github.com/nodbot/nod"
)

// Expiry moves change sets on with time.
type Expiry interface {
	// ExpireSets expires the open sets whose time is up at now, each once.
	ExpireSets(ctx context.Context, now time.Time) ([]nod.ChangeSet, error)
	// WarnSets marks the open sets past their warning time, each once.
	WarnSets(ctx context.Context, now time.Time, warnAt func(nod.ChangeSet) time.Time) ([]nod.ChangeSet, error)
}

// Deletions moves each person's line of deletions on with time.
type Deletions interface {
	// DeletionsDue returns one deletion per person whose line must move
	// on at now: its question expired, or its first was never asked.
	DeletionsDue(ctx context.Context, now time.Time) ([]nod.PendingDeletion, error)
}

// Forgets ends the /forget requests whose phrase never came.
type Forgets interface {
	// ExpireForgets ends the requests whose time is up at now, each
	// once across replicas, and returns them.
	ExpireForgets(ctx context.Context, now time.Time) ([]nod.ForgetRequest, error)
}

// Trash empties old trash.
type Trash interface {
	// PurgeTrash deletes for good the tasks trashed before cutoff, and
	// says how many.
	PurgeTrash(ctx context.Context, cutoff time.Time) (int, error)
}

// Buttons forgets the records of old buttons.
type Buttons interface {
	// PruneButtons forgets the callback data last shown on a message
	// before cutoff, and says how many.
	PruneButtons(ctx context.Context, cutoff time.Time) (int, error)
}

// Updates forgets the records of old handled updates.
type Updates interface {
	// PruneUpdates forgets the updates handled before cutoff but the
	// newest, and says how many it forgot.
	PruneUpdates(ctx context.Context, cutoff time.Time) (int, error)
}

// Outbox holds the messages owed for changes until they are delivered.
type Outbox interface {
	// TakeOwed takes for this process those owed messages that nobody
	// delivered (see storage.Outbox.TakeOwed); Delivered marks them sent.
	TakeOwed(ctx context.Context, grace time.Duration) ([]nod.Owed, error)
	Delivered(ctx context.Context, chatID nod.ChatID, kind nod.OwedKind, refs ...string) error
}

// Schedule holds the reminders and daily reviews that fall due.
type Schedule interface {
	// ClaimDue claims what is due at now, each once across replicas, and
	// records it as owed in the same transaction.
	ClaimDue(ctx context.Context, now time.Time, def *time.Location, limit int) ([]nod.Owed, error)
}

// Tasks reads the task a reminder is about.
type Tasks interface {
	Task(ctx context.Context, chatID nod.ChatID, id nod.TaskID) (nod.Task, error)
}

// Deps are what a Sweeper works with; storage's repositories provide
// them all.
type Deps struct {
	Expiry    Expiry
	Deletions Deletions
	Forgets   Forgets // nil: no /forget expires
	Trash     Trash
	Buttons   Buttons
	Updates   Updates
	Outbox    Outbox
	Schedule  Schedule // nil: no reminders nor daily reviews are claimed
	Tasks     Tasks
}
