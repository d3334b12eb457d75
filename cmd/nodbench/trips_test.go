package main

import (
	"slices"
	"testing"

	"github.com/nodbot/nod/storage/storagetest"
)

// On PostgreSQL a round trip costs nod more CPU than most statements, so
// a write transaction sends its BEGIN, the chat's lock and the writes
// nobody waits on with its next statement or its COMMIT
// (storage/pgtx.go): a read-only turn and a confirm tap take a bounded
// number of round trips, counted end to end.
func TestRoundTripsPerOperation(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storagetest.Dialects(t), "postgres") {
		t.Skip("PostgreSQL is not available")
	}
	// trips runs op as measureWork does and counts its round trips once
	// nod has handled it.
	trips := func(prepare, op func(e *env)) (n int64) {
		measureWork(t, "postgres", prepare, func(e *env) {
			before := e.db.RoundTrips()
			op(e)
			settled(t, e)
			n = e.db.RoundTrips() - before
		})
		return n
	}
	// greeted has the person say hi, which the model answers: nod has
	// read the chat's settings once.
	greeted := func(e *env) {
		seedLogin(e)
		e.llm.Handle(readOnlyLLM)
		e.tg.SendText(benchChat, 42, "hi")
		e.tg.WaitBotMessages(benchChat, 1)
	}
	turn := trips(greeted, func(e *env) {
		e.tg.SendText(benchChat, 42, "what's on my list?")
		e.tg.WaitBotMessages(benchChat, 2)
	})
	// The person's app now reports another language: nod writes it to the
	// chat's settings, and so reads them afresh rather than route the
	// message by a reading its own write just moved.
	relang := trips(greeted, func(e *env) {
		e.tg.Wire().SetLanguage(42, "de")
		e.tg.SendText(benchChat, 42, "was steht an?")
		e.tg.WaitBotMessages(benchChat, 2)
	})
	tap := trips(func(e *env) { proposeItems(e, 1) }, func(e *env) { tapSet(e, "✓ 1") })
	t.Logf("round trips: read-only turn %d, after a new language %d, confirm tap %d", turn, relang, tap)
	// 20 and 25 with a round trip for every statement, BEGIN and COMMIT:
	// a turn's start goes out in one (the opening's reads, the checks that
	// the settings the process kept from the chat's last message and
	// routed this one by still stand and that no events came, and the
	// person's words with their update's mark), the turn's end in one (its
	// audit row goes after the chain head the process kept, checked by
	// the server, with COMMIT); a tap reads the
	// chat's settings with its button's record in one, and its one write
	// transaction in 2: its update's mark and the chat's lock go out with
	// the reads of the set (with the audit chain's head) and of the tasks
	// its items change (with their checklists and cards' messages), and
	// every write, the conditional ones checked by the server, goes out
	// with COMMIT, as does the read of the streak a rule's offer needs;
	// the redrawn set is marked shown in one.
	if turn > 2 || tap > 4 {
		t.Errorf("a read-only turn took %d round trips, a confirm tap %d; want at most 2 and 4", turn, tap)
	}
	if relang > 4 { // the settings, the language seen, the start, the end
		t.Errorf("a turn in a newly seen language took %d round trips, want at most 4", relang)
	}
}
