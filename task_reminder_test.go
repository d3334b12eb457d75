package nod_test

import (
	"testing"
	"time"

	"github.com/nodbot/nod"
)

// A reminder went out when its time passed while the task was open; a
// task closed before it was due never got it, whatever the time now.
func TestReminderSent(t *testing.T) {
	nine := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name    string
		status  nod.Status
		updated time.Time
		now     time.Time
		want    bool
	}{
		{"ahead", nod.StatusOpen, nine.Add(-time.Hour), nine.Add(-time.Minute), false},
		{"passed, open", nod.StatusOpen, nine.Add(-time.Hour), nine.Add(time.Minute), true},
		{"done after it came", nod.StatusDone, nine.Add(time.Minute), nine.Add(time.Hour), true},
		{"done before it was due", nod.StatusDone, nine.Add(-time.Minute), nine.Add(time.Hour), false},
		{"rejected before it was due", nod.StatusRejected, nine.Add(-time.Minute), nine.Add(time.Hour), false},
	} {
		task := nod.Task{Status: c.status, RemindAt: &nine, UpdatedAt: c.updated}
		if got := task.ReminderSent(c.now); got != c.want {
			t.Errorf("%s: ReminderSent = %v, want %v", c.name, got, c.want)
		}
	}
	if (nod.Task{}).ReminderSent(nine) {
		t.Error("a task without a reminder had one sent")
	}
}
