package nod

import "errors"

// Sentinel errors. Packages wrap them with the operation that failed
// (fmt.Errorf("confirm item %s: %w", id, nod.ErrDecided)); the bot maps them
// to user notices in one place.
var (
	// ErrModel marks a turn that failed because the model endpoint did not give
	// a usable answer (HTTP errors, timeouts, no choices). Nothing of the turn
	// but the person's message is stored.
	ErrModel = errors.New("model unavailable")
	// ErrNotFound: the record does not exist, is in the trash, or belongs to
	// another chat (which must be indistinguishable from not existing).
	ErrNotFound = errors.New("not found")
	// ErrDecided: a change item or undo entry was already decided or used.
	ErrDecided = errors.New("already decided")
	// ErrExpired: the change set, undo entry or confirmation has expired.
	ErrExpired = errors.New("expired")
	// ErrForbidden: the user may not do this in this chat.
	ErrForbidden = errors.New("forbidden")
	// ErrInvalid: input failed validation; the wrapping error says why.
	ErrInvalid = errors.New("invalid")
	// ErrUnchanged: a change would leave the task as it is; a kind of
	// ErrInvalid, wrapped with it.
	ErrUnchanged = errors.New("changes nothing")
	// ErrTrashed: the task is in the trash; only restoring it from /trash
	// changes it.
	ErrTrashed = errors.New("task is in the trash")
	// ErrStale: the value a change was proposed against has changed since.
	ErrStale = errors.New("changed since proposed")
	// ErrTwin: bringing the task back would put it beside another task
	// of its title, added since; a kind of ErrStale.
	ErrTwin = errors.New("another task has its title")
	// ErrSent: the reminder a change set has gone out since; undoing the
	// change would move a reminder that was sent.
	ErrSent = errors.New("reminder went out")
	// ErrHandled: the update that asked for this was handled before (a
	// redelivery); nothing was written.
	ErrHandled = errors.New("update handled before")
	// ErrNotAsked: a turn that would answer the agent's question found
	// none waiting (TurnRequest.Resume); nothing was written.
	ErrNotAsked = errors.New("no question waits")
	// ErrSettingsMoved: the chat's settings changed since the reading a
	// turn was routed by (OpeningRequest.Settings); nothing was written.
	ErrSettingsMoved = errors.New("chat settings changed")
)

// Detail is err's text without the sentinel's suffix (": invalid",
// ": not found"), for the person or the model to read.
func Detail(err error) string {
	msg := err.Error()
	for _, s := range []error{ErrInvalid, ErrNotFound} {
		if errors.Is(err, s) {
			if n := len(msg) - len(": "+s.Error()); n > 0 && msg[n:] == ": "+s.Error() {
				msg = msg[:n]
			}
		}
	}
	return msg
}
