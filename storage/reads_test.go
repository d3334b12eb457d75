package storage_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// A turn's opening reads, in one round trip on PostgreSQL, what the reads
// it replaces read one by one: the history, the events after its last
// message (not another topic's, nor before it), the focus tasks with
// their checklists, the open sets with their items and the decisions.
func TestOpeningReadsWhatEachReadReads(t *testing.T) {
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task",
			Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: "T2", Title: "Launch plan", Status: nod.StatusOpen, Priority: nod.P2}, nil
			}, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}}); err != nil {
			t.Fatal(err)
		}
		general, topic := nod.Topic{ChatID: chat}, nod.Topic{ChatID: chat, Thread: 7}
		say := func(at nod.Topic, text string) {
			t.Helper()
			clock.Advance(time.Minute)
			msgs := []nod.ChatMessage{{Role: nod.RoleUser, Content: text, UserID: 42}, {Role: nod.RoleAssistant, Content: "Noted: " + text}}
			if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: at, UserID: 42, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		say(general, "first")
		decided := proposeCS(t, db)
		clock.Advance(time.Minute)
		if _, err := db.ChangeSets().RejectItem(ctx, chat, decided.ID, 1, 42); err != nil {
			t.Fatal(err) // before the last message: no event of the opening's
		}
		say(general, "second")
		open := proposeCS(t, db)
		clock.Advance(time.Minute)
		if _, err := db.ChangeSets().RejectItem(ctx, chat, decided.ID, 2, 42); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"elsewhere", "and on", "and on"} {
			say(topic, text) // after the event, and numbered past the general topic's
		}

		req := nod.OpeningRequest{Topic: general, Window: nod.Window{Keep: 40, Step: 20}, Today: "2026-03-12", Tasks: 50, Decisions: 50}
		got, err := db.Conversation().Opening(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var want nod.Opening
		if want.History, err = db.Conversation().History(ctx, general, req.Window); err != nil {
			t.Fatal(err)
		}
		if want.Events, err = db.Conversation().Events(ctx, general, want.History[len(want.History)-1].At); err != nil {
			t.Fatal(err)
		}
		if want.Focus, err = db.Tasks().FocusTasks(ctx, chat, req.Today, req.Tasks); err != nil {
			t.Fatal(err)
		}
		if want.Open, err = db.ChangeSets().OpenChangeSets(ctx, general); err != nil {
			t.Fatal(err)
		}
		if want.Decisions, err = db.ChangeSets().RecentDecisions(ctx, chat, req.Decisions); err != nil {
			t.Fatal(err)
		}
		// What makes the comparison worth something.
		if len(want.History) != 4 || len(want.Events) != 1 || len(want.Focus.Tasks) != 2 || len(want.Focus.Tasks[1].Checklist)+len(want.Focus.Tasks[0].Checklist) != 3 ||
			len(want.Open) != 1 || len(want.Open[0].Items) != 2 || want.Open[0].ID != open.ID || len(want.Decisions) != 2 {
			t.Fatalf("the seed reads back as %d messages, %d events, focus %+v, open %+v, %d decisions", len(want.History), len(want.Events), want.Focus, want.Open, len(want.Decisions))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Opening differs from the reads one by one (-want +got):\n%s", diff)
		}

		// A topic without messages has no events, however recent.
		got, err = db.Conversation().Opening(ctx, nod.OpeningRequest{Topic: nod.Topic{ChatID: chat, Thread: 9}, Window: req.Window, Today: req.Today, Tasks: 1, Decisions: 1})
		if err != nil || len(got.History) != 0 || len(got.Events) != 0 || len(got.Focus.Tasks) != 1 || got.Focus.Total != 2 || !got.Focus.Later || len(got.Decisions) != 1 {
			t.Errorf("a new topic's opening = %+v, %v", got, err)
		}
	})
}
