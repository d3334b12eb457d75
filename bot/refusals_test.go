package bot

import (
	"testing"
	"time"

	"github.com/nodbot/nod"
)

func TestRefusalsDue(t *testing.T) {
	var r refusals
	t0 := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	if !r.due(1, 2, t0) {
		t.Fatal("a first message is not refused")
	}
	if r.due(1, 2, t0.Add(59*time.Minute)) {
		t.Error("refused twice within the hour")
	}
	if !r.due(3, 2, t0.Add(time.Minute)) {
		t.Error("not refused in another chat")
	}
	if !r.due(1, 2, t0.Add(time.Hour)) {
		t.Error("not refused again after an hour")
	}
}

// A stream of strangers never makes the memory grow past maxRefusals:
// those refused over an hour ago are forgotten, and a flood of fresh ones
// is dropped at once.
func TestRefusalsBounded(t *testing.T) {
	var r refusals
	t0 := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	for i := range 3 * maxRefusals {
		// A stranger a second: an hour holds 3600 of them, under the bound.
		r.due(nod.ChatID(i), nod.UserID(i), t0.Add(time.Duration(i)*time.Second))
		if len(r.last) > maxRefusals {
			t.Fatalf("after %d strangers %d remembered, want at most %d", i+1, len(r.last), maxRefusals)
		}
	}
	if n := len(r.last); n < 3000 {
		t.Errorf("%d remembered at a stranger a second, want the last hour's (about 3600) kept", n)
	}
	// A flood: everyone at once.
	for i := range 3 * maxRefusals {
		r.due(-1, nod.UserID(i), t0.Add(24*time.Hour))
		if len(r.last) > maxRefusals {
			t.Fatalf("a flood: %d remembered, want at most %d", len(r.last), maxRefusals)
		}
	}
}
