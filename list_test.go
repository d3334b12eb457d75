package nod_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// A /tasks button's ref survives its trip through callback data, a bare
// cursor of the buttons sent before there were lists reads as the open
// list, a label too long to fit says so, and what no ref renders is
// refused.
func TestListRef(t *testing.T) {
	for _, r := range []nod.ListRef{{Page: 1}, {Done: true, Page: 3, Cursor: "k3"}, {Label: "München", Page: 12, Cursor: "zzzzzz"}} {
		id, ok := r.ID()
		back, err := nod.ParseListRef(id)
		if want := (nod.ListRef{Label: strings.ToLower(r.Label), Done: r.Done, Page: r.Page, Cursor: r.Cursor}); !ok || err != nil || back != want {
			t.Errorf("%+v → %q (%v) → %+v, %v", r, id, ok, back, err)
		}
	}
	if r, err := nod.ParseListRef("k3"); err != nil || r != (nod.ListRef{Cursor: "k3"}) {
		t.Errorf("a bare cursor reads %+v, %v", r, err)
	}
	if id, ok := (nod.ListRef{Label: strings.Repeat("lang", 10), Page: 1, Cursor: "k3"}).ID(); ok || len(id) <= nod.MaxActionID {
		t.Errorf("a label of 40 bytes fits beside a cursor: %q", id)
	}
	for _, id := range []string{"x1_k3", "o_k3", "o0_k3", "o1_k3_!!", "d1__/w"} {
		if _, err := nod.ParseListRef(id); !errors.Is(err, nod.ErrInvalid) {
			t.Errorf("%q reads, err %v", id, err)
		}
	}
}
