package storage

import (
	"maps"
	"slices"
	"testing"

	"github.com/nodbot/nod"
)

// A zone proposal's kept reminders read back as KeepLocal writes them, a
// task's moments each, and as it wrote them before a task could hold
// more than one; a record that does not read keeps none.
func TestKeptRemindersRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kept string
		want map[nod.TaskID][]int64
	}{
		{`{"T1":[5,3]}`, map[nod.TaskID][]int64{"T1": {5, 3}}},
		{`{"T1":5}`, map[nod.TaskID][]int64{"T1": {5}}},
		{``, nil},
		{`nonsense`, map[nod.TaskID][]int64{}},
	} {
		if got := keptReminders(c.kept); !maps.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("keptReminders(%q) = %v, want %v", c.kept, got, c.want)
		}
	}
}
