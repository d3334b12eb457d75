package storage

import (
	"testing"

	"github.com/nodbot/nod"
)

// A note is stored as its key and values and read back the same; no note
// is stored as "".
func TestNoteEncoding(t *testing.T) {
	t.Parallel()
	for _, n := range []nod.Note{{}, {Key: nod.NoteSuperseded}, {Key: nod.NoteNow, Args: []string{"due", "2026-03-20"}}} {
		if got, err := decodeNote(encodeNote(n)); err != nil || !got.Equal(n) {
			t.Errorf("%+v read back as %+v, %v", n, got, err)
		}
	}
	if encodeNote(nod.Note{}) != "" {
		t.Errorf("no note is stored as %q", encodeNote(nod.Note{}))
	}
}
