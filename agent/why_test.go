package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// A proposal's 💬 Why is the model's sentence about that item, never its
// filler; texts as real models write them beside their calls.
func TestWhyIsTheSentenceAboutTheItem(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("and the room must be booked before the slides are final ", 5)
	for _, c := range []struct {
		name, text, title, value, want string
	}{
		{"filler only", "Sure! Let me set that up.", "Check the build", "", ""},
		{"filler naming the task", "Nice, movers sorted. Switching you to Munich time.", "Book movers", "", ""},
		{"about other tasks", "Nice progress! There's no assignee field, so I'm putting Ana on the kitchen and keys tasks as a label.", "Sell the sofa", "", ""},
		{"about the value set", "I suggest also putting the appointment date and time on the task.", "Register at Bürgeramt Munich", "Appointment Monday 7 Dec at 9:30.",
			"I suggest also putting the appointment date and time on the task."},
		{"second sentence names it", "Adding all 11 for your move. I kept the bank account one marked \"maybe\" since you weren't sure.", "Close Lisbon bank account (maybe)", "",
			"I kept the bank account one marked \"maybe\" since you weren't sure."},
		{"one text, several calls: the kitchen", "Landlord moves to Friday.\nThe kitchen goes to Thursday so Friday stays free.", "Pack kitchen", "",
			"The kitchen goes to Thursday so Friday stays free."},
		{"one text, several calls: the landlord", "Landlord moves to Friday.\nThe kitchen goes to Thursday so Friday stays free.", "Tell landlord about keys", "",
			"Landlord moves to Friday."},
		{"a word's longer form", "The room should be booked first.", "Book room", "", "The room should be booked first."},
		{"German filler", "Klar, mache ich. Alles klar!", "Milch kaufen", "", ""},
		{"German reason", "Klar. Die Milch brauchst du morgen früh.", "Milch kaufen", "", "Die Milch brauchst du morgen früh."},
		{"no text", "", "Buy milk", "", ""},
		{"a change reported as made", "Moved the login bug to P1.", "Fix login bug", "", ""},
		{"a change reported as made, then its reason", "I've moved the slides to Wednesday. The slides need the new numbers first.", "Finish the slides", "",
			"The slides need the new numbers first."},
		{"German, reported as made", "Habe den Login-Bug auf P1 gesetzt.", "Login-Bug beheben", "", ""},
		{"German, reported as made in a participle", "Verschoben: der Login-Bug ist jetzt P1.", "Login-Bug beheben", "", ""},
		{"a question is no reason", "When's her birthday? I can add a due date for it.\n\nThe \"personal\" label is a suggestion below, if you want it.", "Buy birthday present for my sister", "personal",
			"The \"personal\" label is a suggestion below, if you want it."},
		{"only a question", "Do you want the sister's present due before her birthday?", "Buy birthday present for my sister", "", ""},
		{"short words name nothing", "Do it now.", "Do it", "", ""},
		// Played: a day's overview, then the reason for moving two tasks.
		{"a list, then the reason", "Monday 7 Dec:\n• 10:00 lab meeting — print the poster draft before it\n• return library books\n\nIt is a lot, so below I suggest moving the poster printing to Fri 4 Dec.",
			"Print poster draft for lab meeting", "", "It is a lot, so below I suggest moving the poster printing to Fri 4 Dec."},
		{"only a list names it", "Monday:\n1. Print the poster draft first\n2. Return library books", "Print poster draft", "", ""},
		{"a piece of a list line", "- Geschenk für Lena – bis 11.12. (Geburtstag am 12.)\n- Zahnarzt anrufen", "Geschenk für Lenas Geburtstag besorgen", "2026-12-11", ""},
		{"cut when long", long, "Book room", "", strings.TrimSpace(string([]rune(strings.Join(strings.Fields(long), " "))[:maxWhy-1])) + "…"},
	} {
		if got := whyFor(c.text, c.title, c.value); got != c.want {
			t.Errorf("%s: whyFor(%q, %q, %q) = %q, want %q", c.name, c.text, c.title, c.value, got, c.want)
		}
	}
}

// A refused call's result tells the model its aside went unseen: after
// the text, or as an error object's note, the object still an object.
func TestUnseenKeepsTheResultReadable(t *testing.T) {
	if got := unseen("Not changed: no.", nil); got != "Not changed: no. "+asideUnseen {
		t.Errorf("plain result = %q", got)
	}
	var obj map[string]string
	if err := json.Unmarshal([]byte(unseen(`{"error":"task T9 not found"}`, nil)), &obj); err != nil || obj["error"] != "task T9 not found" || obj["note"] != asideUnseen {
		t.Errorf("error result = %v %v", obj, err)
	}
	// A sentence of the aside shown as a proposal's reason was read: the
	// model is told which (a played model was told it saw nothing, then
	// found its words on the proposal).
	want := "Proposal queued for user review. The user did not see the text you wrote beside these calls, except “Your meds: the Paris one would still ping.”, shown as the reason of your proposal: say what happened as news, not as a correction."
	if got := unseen("Proposal queued for user review.", shownWhys([]nod.ChangeItem{{Why: "Your meds: the Paris one would still ping."}, {}, {Why: "Your meds: the Paris one would still ping."}})); got != want {
		t.Errorf("with a reason shown = %q, want %q", got, want)
	}
	if got := unseen("Proposal queued for user review.", []string{"A.", "B."}); !strings.Contains(got, "except “A.” and “B.”, shown as the reasons of your proposals:") {
		t.Errorf("with two reasons shown = %q", got)
	}
}
