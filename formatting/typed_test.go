package formatting_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// Checklist changes are rendered from the items' typed values, not from
// their arguments.
func TestChecklistItemsFromTypedValues(t *testing.T) {
	loc := formatting.For("en")
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	ticked := &nod.ChecklistItem{ID: "c3", Title: "Write migration notes", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &at}
	renamed := &nod.ChecklistItem{ID: "c3", Title: "Write release notes", CheckedBy: nod.ActorUser, CheckedAt: &at}
	for _, tc := range []struct {
		name string
		it   nod.ChangeItem
		want string
	}{
		{"uncheck", nod.ChangeItem{Tool: "update_checklist_item", Summary: "stored", ItemBefore: ticked,
			ItemAfter: &nod.ChecklistItem{ID: "c3", Title: ticked.Title, CheckedBy: nod.ActorUser, CheckedAt: &at}},
			`Uncheck: “Write migration notes”`},
		{"rename and uncheck", nod.ChangeItem{Tool: "update_checklist_item", Summary: "stored", ItemBefore: ticked, ItemAfter: renamed},
			`Rename: “Write migration notes” → “Write release notes” and uncheck`},
		{"remove", nod.ChangeItem{Tool: "remove_checklist_item", Summary: "stored", ItemBefore: ticked}, `Remove from the checklist: “Write migration notes”`},
		{"no item", nod.ChangeItem{Tool: "update_checklist_item", Summary: "stored"}, "stored"},
	} {
		if got := loc.Changes().Summary(tc.it); !strings.Contains(got, tc.want) {
			t.Errorf("%s: Summary = %q, want it to contain %q", tc.name, got, tc.want)
		}
	}
	set := nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{{
		ID: "i1", N: 1, Tool: "update_checklist_item", TaskID: "T1", Field: nod.FieldChecklist, Status: nod.ItemPending, Summary: "stored",
		Reason: "The notes were rewritten after the review", ItemBefore: ticked, ItemAfter: renamed,
	}}}
	html := loc.Changes().ChangeSet(formatting.ChangeSetView{Set: set, Titles: map[nod.TaskID]string{"T1": "Fix login bug"}}).HTML
	for _, want := range []string{"Reason: “The notes were rewritten after the review”", "You set this item on " + loc.Stamp(at)} {
		if !strings.Contains(html, want) {
			t.Errorf("change set lacks %q:\n%s", want, html)
		}
	}
}

// Titles read in the language's quotes, as typed: a double quote inside
// stays one, never a backslash escape.
func TestTitlesQuotedAsTyped(t *testing.T) {
	for lang, want := range map[string]string{"en": `Create task “Fix <login> & "bug"”`, "de": `„Fix <login> & "bug"“`} {
		got := formatting.For(lang).Changes().Summary(nod.ChangeItem{Tool: "create_task", Summary: "stored", Field: nod.FieldTask, After: `Fix <login> & "bug"`})
		if !strings.Contains(got, want) || strings.Contains(got, `\`) {
			t.Errorf("%s: Summary = %s, want it to contain %s", lang, got, want)
		}
	}
}
