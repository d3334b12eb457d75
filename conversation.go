package nod

import "time"

// Role of a stored conversation message.
type Role string

// Conversation roles, as the chat completions API names them.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ChatMessage is one entry of a chat's conversation with the agent. The
// history persists so that multi-turn requests survive a restart.
type ChatMessage struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Review marks the instruction that starts a proactive review: it is
	// sent as a user message but is not the person's words.
	Review bool      `json:"review,omitempty"`
	At     time.Time `json:"at"`
	// UserID is who wrote a user message. Speaker names them in a group
	// ("Alice (1001)"), where every line says who spoke; it is empty in a
	// private chat, whose every user line is the one person's.
	UserID  UserID `json:"user_id,omitempty"`
	Speaker string `json:"speaker,omitempty"`
	// ReplyTo is the message a user message replies to, shortened and
	// said as whose it was: "nod's message “…”".
	ReplyTo string `json:"reply_to,omitempty"`
	// Seq is the message's number in its chat, once stored; 0 for a
	// message of the turn in progress, newer than every stored one.
	Seq int64 `json:"-"`
	// MsgID is the Telegram message a user line holds, so that an edit
	// of it finds it; 0 if none.
	MsgID int `json:"msg_id,omitempty"`
	// Forwarded, on a forwarded message, says whose words it carries and
	// when they were sent ("Bob (2002), 2026-11-24 09:00"): they are never
	// the person's own, whoever forwards them.
	Forwarded string `json:"forwarded,omitempty"`
	// EditOf and Edits, on an edit of a message nod had already handled,
	// are that message's MsgID and earlier text: this line replaces it.
	EditOf int    `json:"edit_of,omitempty"`
	Edits  string `json:"edits,omitempty"`
	// Replaced marks a line the person has edited since: its words no
	// longer count. MarkReplaced sets it; it is never stored.
	Replaced bool `json:"-"`
	// Wire is the message as the agent's model requests carry it, as the
	// agent encoded it for storage (never Replaced); nil when it is to be
	// encoded. History hands it back as it was stored.
	Wire []byte `json:"-"`
}

// Said is what the model reads of a user message: who spoke, in a group,
// what the message replies to, and whose words a forwarded one carries.
// An edit says what it replaces; a replaced line says it was edited.
func (m ChatMessage) Said() string {
	s := m.Content
	if m.EditOf != 0 {
		s = "The person edited their message “" + m.Edits + "” to: “" + s + "” (changes already applied from the earlier words stay applied unless changed again)"
	}
	if m.Replaced {
		s = "(edited since, see below; these words no longer count) " + s
	}
	if m.Forwarded != "" {
		s = "(forwarded: a message from " + m.Forwarded + ", not the person's own words) " + s
	}
	if m.ReplyTo != "" {
		s = "(replying to " + m.ReplyTo + ") " + s
	}
	if m.Speaker != "" {
		s = m.Speaker + ": " + s
	}
	return s
}

// MarkReplaced marks the user lines that a later line edits, across
// parts taken as one conversation in order (a history, then a turn's own
// lines).
func MarkReplaced(parts ...[]ChatMessage) {
	var edited map[int]bool
	for p := len(parts) - 1; p >= 0; p-- {
		for i := len(parts[p]) - 1; i >= 0; i-- {
			m := &parts[p][i]
			if m.Role != RoleUser {
				continue
			}
			if m.MsgID != 0 && edited[m.MsgID] {
				m.Replaced = true
			}
			if m.EditOf != 0 {
				if edited == nil {
					edited = map[int]bool{}
				}
				edited[m.EditOf] = true
			}
		}
	}
}

// ToolCall is one function call the agent asked for.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// RoleEvent is nod's note of something that happened outside the
// conversation (an undo, a decision by tap, a deletion, a mode change),
// stored in order with the conversation and shown to the agent, never to
// the classifier.
const RoleEvent Role = "event"

// EventKind names what happened outside the conversation.
type EventKind string

// Events the agent is told about.
const (
	EventConfirmed EventKind = "confirmed" // a proposal, by tap or in words
	EventRejected  EventKind = "rejected"
	EventUndone    EventKind = "undone"
	EventRedone    EventKind = "redone"
	EventDeleted   EventKind = "deleted"
	EventRestored  EventKind = "restored"
	// EventDeletionKept: the person kept a task whose deletion waited
	// for them (a ✗ Keep tap, or an answer that was not its title); Value
	// names the deletions still to be asked after it, quoted.
	EventDeletionKept EventKind = "deletion_kept"
	EventTicked       EventKind = "ticked" // on the task card
	EventUnticked     EventKind = "unticked"
	EventMode         EventKind = "mode"
	// a reminder's button: the task marked done, or reminded again later
	EventRemindDone EventKind = "remind_done"
	EventSnoozed    EventKind = "snoozed"
	// ↩️ Reopen on a done task's card
	EventReopened EventKind = "reopened"
	// ✓ Done on a repeating reminder: this occurrence (Reason, RFC 3339)
	// is done, the reminder moved to the next (Value)
	EventOccurrenceDone EventKind = "occurrence_done"
	// nod stopped (a crash, a restart) before it answered the person's
	// message, and told them so
	EventInterrupted EventKind = "interrupted"
	// an external call a tap confirmed ran (Value: its result's first
	// lines), failed (Reason), or nod stopped while it was under way and
	// its outcome is unknown; Summary names the call
	EventCallRan     EventKind = "call_ran"
	EventCallFailed  EventKind = "call_failed"
	EventCallUnknown EventKind = "call_unknown"
	// the chat's time zone (Value; "" is nod's default) set outside a
	// turn, from Summary: Reason says how, "tz" (the command),
	// "location" (a shared location), or what became of the agent's
	// offer: "confirmed", "rejected" (the zone stays), "undone" (Value is
	// the zone it went back to)
	EventZone EventKind = "zone"
)

// Event is one thing the person did, or nod did for them, outside the
// conversation with the agent.
type Event struct {
	At      time.Time
	Kind    EventKind
	Summary string // the change, as nod summarised it
	Tool    Tool   // an undo's: the tool of the change it took back or put back
	Task    string // the task's title
	TaskID  TaskID // the task's id, where the event's record names it
	Reason  string // a rejection's reason, or why a mode changed
	Value   string // a mode, or a checklist item's title
	UserID  UserID // who did it, if a person did
	Name    string // their name in a group, as nod last saw it; "" if unknown
	// Words are the person's answer in words that made a decision, when
	// nod read it itself ("ja zu 1 und 3, 2 nicht").
	Words string
	// Reminders, of a zone set, are the upcoming reminders that kept
	// their clock time in the new zone.
	Reminders int
}

// Window is how much of a chat's history a turn sends the model: the
// latest Keep messages at least, from a start that moves Step messages at
// a time, so that the history is a stable prefix of the request for many
// turns in a row (a provider's prompt cache reuses only an unchanged
// prefix). It holds fewer than Keep+Step messages; Step ≤ 1 slides the
// start with every message.
type Window struct {
	Keep, Step int
}

// Start returns how many of a chat's first n messages the window leaves
// out.
func (w Window) Start(n int) int {
	step := max(w.Step, 1)
	if n <= w.Keep {
		return 0
	}
	return (n - w.Keep) / step * step
}

// Max is the most messages the window holds.
func (w Window) Max() int { return w.Keep + max(w.Step, 1) - 1 }

// OpeningRequest says what a turn starts from: its topic, the window of
// its conversation, and for the system prompt today's date in the chat's
// zone (YYYY-MM-DD), how many of the tasks that matter most and how many
// of the latest decisions.
type OpeningRequest struct {
	Topic     Topic
	Window    Window
	Today     string
	Tasks     int
	Decisions int
	// Words, if set, is the turn's first part, the person's words, saved
	// with the reads (on PostgreSQL in the same round trip) unless events
	// came after the conversation's last message: the turn's note on
	// them goes before the words, and the turn saves both itself.
	// Opening.Saved says which.
	Words *TurnRecord
	// Settings, if set with a Digest, are the settings the turn was
	// routed by: the opening fails with ErrSettingsMoved, and saves
	// nothing, when the chat's are no longer these.
	Settings *ChatSettings
}

// Opening is what a turn starts from, read together before the model is
// asked.
type Opening struct {
	// History is the topic's latest messages in the window, oldest
	// first. It is shared with the process's cache of conversations:
	// read it, or copy it before changing a message.
	History []ChatMessage
	// Events is what happened outside the conversation after its last
	// message, oldest first; none without a message.
	Events []Event
	// Focus is the tasks that matter most today, most first; Open the
	// topic's pending and partially resolved sets, newest first;
	// Decisions the chat's latest decisions, newest first. Like History
	// they may be shared with a cache: read them, or copy before
	// changing one.
	Focus     TaskPage
	Open      []ChangeSet
	Decisions []Decision
	// Saved reports that OpeningRequest.Words were saved.
	Saved bool
}
