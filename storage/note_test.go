package storage

import (
	"testing"

	"github.com/nodbot/nod"
)

// A note is stored as its key and values and read back the same; plain
// text older versions stored comes back as a key the note template shows
// as it is; no note is stored as "".
func TestNoteEncoding(t *testing.T) {
	for _, n := range []nod.Note{{}, {Key: nod.NoteSuperseded}, {Key: nod.NoteNow, Args: []string{"due", "2026-03-20"}}} {
		if got := decodeNote(encodeNote(n)); !got.Equal(n) {
			t.Errorf("%+v read back as %+v", n, got)
		}
	}
	if encodeNote(nod.Note{}) != "" {
		t.Errorf("no note is stored as %q", encodeNote(nod.Note{}))
	}
	if got := decodeNote("Task was deleted."); got.Key != "Task was deleted." || len(got.Args) != 0 {
		t.Errorf("an old text note reads as %+v", got)
	}
}

// Labels older versions kept comma-joined in change items read in the
// canonical form, so a confirmation compares like with like.
func TestCanonicalLabels(t *testing.T) {
	for in, want := range map[string]string{"auth, bug": `["auth","bug"]`, "": `[]`, `["auth","bug"]`: `["auth","bug"]`, "Bug, auth": `["auth","Bug"]`} {
		if got := canonicalLabels(in); got != want {
			t.Errorf("canonicalLabels(%q) = %s, want %s", in, got, want)
		}
	}
}
