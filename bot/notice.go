package bot

import (
	"errors"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// notice turns an error of a button press into the short text of its
// callback answer. It is the one place errors become user notices;
// unexpected errors are logged by the caller.
func notice(err error) (string, bool) {
	switch {
	case err == nil:
		return "", true
	case errors.Is(err, nod.ErrForbidden):
		return formatting.Notice("n_forbidden", nil), true
	case errors.Is(err, nod.ErrExpired):
		return formatting.Notice("n_expired", nil), true
	case errors.Is(err, nod.ErrDecided):
		return formatting.Notice("n_decided", nil), true
	case errors.Is(err, nod.ErrStale):
		return formatting.Notice("n_stale_undo", nil), true
	case errors.Is(err, nod.ErrNotFound):
		return formatting.Notice("n_not_here", nil), true
	case errors.Is(err, nod.ErrInvalid):
		return formatting.Notice("n_invalid", nil), true
	}
	return formatting.Notice("n_failed", nil), false
}

// decidedNotice names the state of an item that was already decided.
func decidedNotice(set nod.ChangeSet, n int) string {
	if it, ok := set.Item(n); ok && it.Status != nod.ItemPending {
		return formatting.Notice("n_item_decided", map[string]any{"N": n, "Status": it.Status})
	}
	return formatting.Notice("n_decided", nil)
}

func strangerNotice(user int64) string {
	return formatting.Notice("n_stranger", user)
}
