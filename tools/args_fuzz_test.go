package tools

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
)

// FuzzToolArguments feeds arbitrary argument strings to every mutating
// tool's parser: it must never panic, and what it accepts must carry
// arguments that parse again to the same change.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{
		`{"task_id":"T1","priority":"p1"}`, "```json\n{\"task_id\":\"T1\",\"title\":\"x\"}\n```", `"{\"task_id\":\"T1\",\"estimate_minutes\":\"90\"}"`,
		`{"task_id":"T1","items":"[{\"title\":\"a\"},7,null]"}`, `{"task_id":"T1","items":[{"id":"c1","isChecked":"true","reason":"` + "\xff" + `"}]}`,
		`{"task_id":"T1","due_date":null}`, `{"task_id":"T1","labels":["a","A"," "]}`, `[1,2]`, `null`, `{`,
	} {
		f.Add(s)
	}
	names := slices.Sorted(maps.Keys(parsers))
	f.Fuzz(func(t *testing.T, raw string) {
		for _, name := range names {
			a, err := Decode(name, raw)
			if err != nil {
				continue
			}
			changes, _, err := a.Calls()
			if err != nil {
				continue
			}
			for _, c := range changes {
				again, err := Parse(c.Tool(), c.Args())
				if err != nil {
					t.Fatalf("%s(%q): stored args %s do not parse again: %v", name, raw, c.Args(), err)
				}
				if !json.Valid(again.Args()) || string(again.Args()) != string(c.Args()) {
					t.Fatalf("%s(%q): args %s parse back as %s", name, raw, c.Args(), again.Args())
				}
			}
		}
	})
}
