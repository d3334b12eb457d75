package bot

import (
	"errors"
	"fmt"

	"github.com/nodbot/nod"
)

// notice turns an error of a button press into the short text of its
// callback answer. It is the one place errors become user notices;
// unexpected errors are logged by the caller.
func notice(err error) (string, bool) {
	switch {
	case err == nil:
		return "", true
	case errors.Is(err, nod.ErrForbidden):
		return "Only the person who asked for these changes can decide them.", true
	case errors.Is(err, nod.ErrExpired):
		return "This proposal expired; nothing was changed.", true
	case errors.Is(err, nod.ErrDecided):
		return "Already decided; nothing more was changed.", true
	case errors.Is(err, nod.ErrStale):
		return "The task changed since, so this was not undone.", true
	case errors.Is(err, nod.ErrNotFound):
		return "This button is not valid here; nothing was changed.", true
	case errors.Is(err, nod.ErrInvalid):
		return "This button is not valid; nothing was changed.", true
	}
	return "Sorry, that could not be done; nothing was changed. Please try again.", false
}

// decidedNotice names the state of an item that was already decided.
func decidedNotice(set nod.ChangeSet, n int) string {
	if it, ok := set.Item(n); ok && it.Status != nod.ItemPending {
		return fmt.Sprintf("Item %d was already %s.", n, it.Status)
	}
	return "Already decided; nothing more was changed."
}

func strangerNotice(user int64) string {
	return fmt.Sprintf("Sorry, this bot is private. Your user id is %d.", user)
}
