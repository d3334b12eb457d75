package agent

import (
	"encoding/json"
	"testing"
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
	f.Fuzz(func(t *testing.T, raw string) {
		for _, tool := range tools {
			if tool.parse == nil {
				continue
			}
			a, err := decodeArgs(tool.Name, raw)
			if err != nil {
				continue
			}
			changes, _, err := tool.parse(a)
			if err != nil {
				continue
			}
			for _, c := range changes {
				again, err := parseChange(c.tool(), c.args())
				if err != nil {
					t.Fatalf("%s(%q): stored args %s do not parse again: %v", tool.Name, raw, c.args(), err)
				}
				if !json.Valid(again.args()) || string(again.args()) != string(c.args()) {
					t.Fatalf("%s(%q): args %s parse back as %s", tool.Name, raw, c.args(), again.args())
				}
			}
		}
	})
}
