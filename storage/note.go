package storage

import (
	"encoding/json"
	"fmt"

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

// decodeNote reads a stored note; "" is none.
func decodeNote(s string) (nod.Note, error) {
	var n nod.Note
	if s == "" {
		return n, nil
	}
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		return n, fmt.Errorf("read note %q: %w", s, err)
	}
	return n, nil
}
