package storage

import (
	"encoding/json"
	"strings"

	"github.com/nodbot/nod"
)

// encodeNote is how a change item's note is stored: its key and values as
// JSON, so that each language renders it in its own words; "" for none.
func encodeNote(n nod.Note) string {
	if n.IsZero() {
		return ""
	}
	b, _ := json.Marshal(n)
	return string(b)
}

// decodeNote reads a stored note. Plain text, as older versions stored
// it, comes back as the key: the note template shows an unknown key as it
// is.
func decodeNote(s string) nod.Note {
	var n nod.Note
	if !strings.HasPrefix(s, `{"note":`) || json.Unmarshal([]byte(s), &n) != nil || n.Key == "" {
		return nod.Note{Key: s}
	}
	return n
}
