package agent

import (
	"fmt"
	"math"
	"strings"

	"github.com/nodbot/nod"
)

// withdrawn returns the pending items of the topic's open sets that the
// person's edit takes back: those of their sets made from the words the
// edit replaces, numbered from the edited message up to their next one.
// It returns none for a turn that is no edit, or when the edited message
// is out of history.
func withdrawn(req nod.TurnRequest, history []nod.ChatMessage, open []nod.ChangeSet) ([]nod.ItemRef, []string) {
	if req.EditOf == 0 {
		return nil, nil
	}
	from, to := int64(0), int64(math.MaxInt64)
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role != nod.RoleUser || m.UserID != req.UserID || m.Seq == 0 {
			continue
		}
		if m.MsgID == req.EditOf {
			from = m.Seq
			break
		}
		to = m.Seq // a later message of theirs: sets from then on are its own
	}
	if from == 0 {
		return nil, nil
	}
	var (
		refs []nod.ItemRef
		said []string
	)
	for _, s := range open {
		if s.UserID != req.UserID || s.AfterSeq < from || s.AfterSeq >= to {
			continue
		}
		for _, it := range s.Items {
			if it.Status == nod.ItemPending {
				refs = append(refs, nod.ItemRef{SetID: s.ID, N: it.N})
				said = append(said, fmt.Sprintf("- proposal %s, item %d: %s", s.ID, it.N, it.Summary))
			}
		}
	}
	return refs, said
}

// withdrawnNote tells the agent which of its proposals the edit withdrew.
func withdrawnNote(said []string) string {
	return "\nThe user edited the message these proposals of yours came from, so nod withdrew them: they no longer wait for the user. Propose again what the edited words still ask for.\n" +
		strings.Join(said, "\n") + "\n"
}
