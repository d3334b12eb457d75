package bot

import (
	"time"

	"github.com/nodbot/nod"
)

// refusalInterval is how often a stranger is told, at most, that the bot
// is private: once on their first message in a chat, then once an hour.
const refusalInterval = time.Hour

// maxRefusals bounds the strangers remembered: anyone may message a bot,
// so the memory of whom it refused must not grow with them.
const maxRefusals = 4096

// refusals remembers when each stranger was last refused in each chat.
// Not safe for concurrent use; the Bot's mu guards it.
type refusals struct {
	last map[[2]int64]time.Time // chat, user → last refusal
}

// due reports whether the stranger user in chat should be refused now,
// and if so records that they were. Entries older than refusalInterval
// are forgotten once maxRefusals are held; if most are still fresh (a
// flood of strangers), all are, which costs at worst a second refusal
// within the hour.
func (r *refusals) due(chat nod.ChatID, user nod.UserID, now time.Time) bool {
	key := [2]int64{int64(chat), int64(user)}
	if last, seen := r.last[key]; seen && now.Sub(last) < refusalInterval {
		return false
	}
	if r.last == nil {
		r.last = map[[2]int64]time.Time{}
	}
	if len(r.last) >= maxRefusals {
		for k, t := range r.last {
			if now.Sub(t) >= refusalInterval {
				delete(r.last, k)
			}
		}
		if len(r.last) > maxRefusals/2 {
			clear(r.last) // keeps each prune at least maxRefusals/2 refusals apart
		}
	}
	r.last[key] = now
	return true
}
