package nod

import (
	"encoding/json"
	"time"
)

// SetStatus is the lifecycle state of a change set:
// pending → partially_resolved → resolved, or pending → expired.
type SetStatus string

// Change set states.
const (
	SetPending           SetStatus = "pending"
	SetPartiallyResolved SetStatus = "partially_resolved"
	SetResolved          SetStatus = "resolved"
	SetExpired           SetStatus = "expired"
)

// Open reports whether items of the set can still be decided.
func (s SetStatus) Open() bool { return s == SetPending || s == SetPartiallyResolved }

// ItemStatus is the state of one change item.
type ItemStatus string

// Change item states. Every state but ItemPending is final.
const (
	ItemPending   ItemStatus = "pending"
	ItemConfirmed ItemStatus = "confirmed"
	ItemRejected  ItemStatus = "rejected"
	ItemStale     ItemStatus = "stale"
	ItemFailed    ItemStatus = "failed"
)

// MaxItems is how many items one change set holds at most (docs/design.md §4).
const MaxItems = 10

// How long nod's records act unless the operator sets otherwise
// (docs/design.md §9.1), declared once for every package that keeps
// them: a change set stays open DefaultChangeSetTTL, an applied change
// undoable DefaultUndoWindow, a trashed task restorable
// DefaultTrashRetention, and a deletion's question waits
// DefaultConfirmWindow for the typed title.
const (
	DefaultChangeSetTTL   = 7 * 24 * time.Hour
	DefaultUndoWindow     = 24 * time.Hour
	DefaultTrashRetention = 30 * 24 * time.Hour
	DefaultConfirmWindow  = 10 * time.Minute
)

// Field names what a change touches; formatting renders each its own way.
type Field string

// Fields of a task that changes are shown for.
const (
	FieldTask        Field = "task" // create_task: the whole new task
	FieldTitle       Field = "title"
	FieldDescription Field = "description"
	FieldStatus      Field = "status"
	FieldPriority    Field = "priority"
	FieldEstimate    Field = "estimate"
	FieldDue         Field = "due"
	FieldReminder    Field = "reminder" // remind_at, RFC 3339 in UTC
	FieldRepeat      Field = "repeat"   // the reminder's rule, as Task.Repeat holds it
	FieldLabels      Field = "labels"
	FieldChecklist   Field = "checklist"
)

// ChangeSet is one turn's proposals, shown to the person as one message.
type ChangeSet struct {
	ID SetID
	// Topic is where the set was proposed: its message goes there, and
	// only that topic's words answer it.
	Topic
	UserID    UserID // who asked; 0 for a proactive review
	Status    SetStatus
	MessageID int // the Telegram message showing the set; 0 until sent
	// AfterSeq is the chat's last message number when the set was made:
	// only the person's messages numbered after it can answer the set.
	AfterSeq   int64
	Items      []ChangeItem
	CreatedAt  time.Time
	ResolvedAt *time.Time
	ExpiresAt  time.Time
	// Warned is set once the message has said the set expires soon.
	Warned bool
}

// ChangeItem is one proposed change: one tool call, or one element of an
// exploded batch call.
type ChangeItem struct {
	ID     string
	N      int    // 1-based number shown on its buttons; never changes
	Tool   Tool   // contract name, or add_checklist_item / update_checklist_item
	TaskID TaskID // empty for create_task
	// Args are the call's arguments as the agent rebuilds the change from
	// them and the audit records them; no other package reads into them.
	Args    json.RawMessage
	Summary string // what the person reads
	Field   Field
	// Before and After are the touched field's value when proposed and as
	// proposed, in the raw form the agent compares for staleness: a scalar
	// field's canonical value (Task.Value), an added checklist item's title.
	// For an edited or removed checklist item they are the agent's own
	// encoding; read ItemBefore and ItemAfter instead.
	Before string
	After  string
	// ItemBefore and ItemAfter are the checklist item an update or removal
	// touches, when proposed and as proposed (nil for a removal); the
	// proposed item keeps its old provenance until it is applied.
	ItemBefore, ItemAfter *ChecklistItem
	// Reason is why the agent changes or removes a checklist item: what
	// it must give to override the person's tick (docs/design.md §5).
	Reason string
	// Why is the sentence of the model's words beside the call that
	// gives its reason for this change, shown to the person with the
	// item; "" when its words say nothing about the item (the rule is
	// in docs/design.md, Why).
	Why string
	// NewTask is the task a create_task would create (without an id).
	NewTask *Task
	Status  ItemStatus
	Note    Note   // why an item is stale or failed; zero: none
	UndoID  UndoID // the undo entry of a confirmed item
}

// Expired reports whether the set's items can no longer be decided at
// now: it was marked expired, or it is open and its time is up, whether or
// not a sweep has marked it yet.
func (cs *ChangeSet) Expired(now time.Time) bool {
	return cs.Status == SetExpired || (cs.Status.Open() && !now.Before(cs.ExpiresAt))
}

// Item returns the item numbered n.
func (cs *ChangeSet) Item(n int) (*ChangeItem, bool) {
	for i := range cs.Items {
		if cs.Items[i].N == n {
			return &cs.Items[i], true
		}
	}
	return nil, false
}

// DeriveStatus computes the set's status from its items: nothing decided is
// pending, everything decided is resolved, anything between is partially
// resolved. An expired set stays expired.
func (cs *ChangeSet) DeriveStatus() SetStatus {
	if cs.Status == SetExpired {
		return SetExpired
	}
	pending := 0
	for _, it := range cs.Items {
		if it.Status == ItemPending {
			pending++
		}
	}
	switch pending {
	case len(cs.Items):
		return SetPending
	case 0:
		return SetResolved
	default:
		return SetPartiallyResolved
	}
}

// DecidableBy reports whether user may decide the set's items: in a group
// only the person whose request produced it, or, for a proactive review's
// set (UserID 0), anyone allowed in the chat.
func (cs *ChangeSet) DecidableBy(user UserID) bool { return cs.UserID == 0 || cs.UserID == user }

// Pending returns the numbers of the items still to decide, in order.
func (cs *ChangeSet) Pending() []int {
	var ns []int
	for _, it := range cs.Items {
		if it.Status == ItemPending {
			ns = append(ns, it.N)
		}
	}
	return ns
}
