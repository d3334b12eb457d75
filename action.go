package nod

// ActionKind is what an inline button does.
type ActionKind uint8

// Button actions. Values are part of the callback data format: append only.
const (
	ActConfirm       ActionKind = 1 + iota // confirm item N of change set ID
	ActReject                              // reject item N of change set ID
	ActConfirmAll                          // confirm every pending item of change set ID
	ActRejectAll                           // reject every pending item of change set ID
	ActUndo                                // undo entry ID
	ActOpenTask                            // show the card of task ID
	ActToggle                              // toggle checklist item ID: N 1 ticks it, 2 unticks it
	ActSetMode                             // set the chat's mode to ID
	ActRestore                             // restore task ID from the trash
	ActApplyAnyway                         // apply item N of set ID although its task changed
	ActSkip                                // close item N of set ID, keeping the task as it is
	ActRetry                               // retry failed item N of set ID, then the rest
	ActSkipRest                            // go on with the rest of set ID after a failure
	ActAbort                               // stop confirming all of set ID
	ActUndoForce                           // undo entry ID although the task changed since
	ActRepropose                           // re-propose what expired set ID still holds
	ActKeep                                // keep open set ID open longer
	ActAcceptRule                          // accept the offered rule ID
	ActDeclineRule                         // decline the offered rule ID
	ActRevokeRule                          // revoke rule ID from the /rules list
	ActStopRule                            // revoke rule ID from a receipt of its change
	ActAcceptReading                       // apply reading ID of a decision stated in words
	ActTaskPage                            // show the chat's tasks after cursor ID (N PageLater) or before it (N PageEarlier)
	ActUndoZone                            // undo time zone change ID
	ActRemindDone                          // mark task ID done, from its reminder
	ActSnooze                              // remind of task ID again: N is SnoozeHour or SnoozeTomorrow
	ActZoneAccept                          // set the time zone proposed as ID
	ActZoneDecline                         // keep the time zone, declining proposal ID
	ActUndoAll                             // undo every change of the short receipt it is on (ID: its first undo entry)
	ActUndoPick                            // show page N of the Undo buttons of the short receipt it is on
	ActZoneCity                            // set the time zone proposed as ID, for the city GeoNames calls N
	// A task card's own buttons, on task ID. N is the card's reminder
	// time as it showed it (Unix seconds, 0 for none): a tap on a card
	// whose task has another reminder since changes nothing.
	ActCardDone     // mark it done (a repeating reminder: this occurrence)
	ActCardHour     // remind of it again in an hour
	ActCardTomorrow // remind of it again tomorrow at the reminder's local time
	ActCardReopen   // open it again (N unused)
	// ActKeepDeletion cancels asked deletion ID without its title typed:
	// N KeepOne that one, N KeepLine the rest of its person's line too.
	ActKeepDeletion
	// ActUndoLeave answers the question an undo or redo of entry ID asked
	// (its task changed since, or one of its title was added): leave the
	// list as it is. The question loses its buttons; nothing changes.
	ActUndoLeave
)

// What a deletion question's ✗ (ActKeepDeletion's N) keeps.
const (
	KeepOne  = 1
	KeepLine = 2
)

// What a reminder's snooze (ActSnooze's N) asks for.
const (
	SnoozeHour     = 1 // an hour from now
	SnoozeTomorrow = 2 // tomorrow at the reminder's local time
)

// Action is what a button names: a kind and a server-side record. It
// authorizes nothing by itself; the bot looks the record up and checks who
// pressed.
type Action struct {
	Kind ActionKind
	ID   string
	N    int
}

// What a checklist toggle (ActToggle's N) asks for: every card says
// which, so that a tap on a card out of date changes nothing.
const (
	ToggleTick   = 1
	ToggleUntick = 2
)

// Which way a task page button (ActTaskPage's N) leafs from its cursor.
const (
	PageLater   = 1
	PageEarlier = 2
)
