package storage

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No statement binds its LIMIT: SQLite then prepares the statement again
// on every call (a millisecond for the prompt's task listing), which
// undoes the statement cache. limitSQL writes the number in.
func TestNoBoundLimit(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	bound := regexp.MustCompile(`(?i)\b(LIMIT|OFFSET)\s+\$\d`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if loc := bound.FindIndex(b); loc != nil && !strings.HasSuffix(f, "_test.go") {
			t.Errorf("%s binds a LIMIT or OFFSET: %q", f, b[loc[0]:loc[1]])
		}
	}
}
