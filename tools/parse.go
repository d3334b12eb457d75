package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// parsers reads each task tool's arguments into its changes: one, or one
// per element of a batch tool, with a note per dropped element.
var parsers = map[nod.Tool]func(a Args) ([]Call, []string, error){
	nod.ToolCreateTask:        parseCreate,
	nod.ToolSetTitle:          parseTitle,
	nod.ToolUpdateDescription: parseDescription,
	nod.ToolSetStatus:         parseStatus,
	nod.ToolSetPriority:       parsePriority,
	nod.ToolUpdateEstimate:    parseEstimate,
	nod.ToolUpdateDueDate:     parseDueDate,
	nod.ToolSetReminder:       parseReminder,
	nod.ToolAssignLabels:      parseLabels,
	nod.ToolAddItems:          parseAddItems,
	nod.ToolUpdateItems:       parseUpdateItems,
	nod.ToolRemoveItems:       parseRemoveItems,
}

// Changes validates a call of a task tool into its changes: one, or one
// per element of a batch tool, with a note per dropped element. An error
// wraps nod.ErrInvalid.
func (a Args) Calls() ([]Call, []string, error) {
	parse, ok := parsers[a.Tool]
	if !ok {
		return nil, nil, fmt.Errorf("unknown change %q: %w", a.Tool, nod.ErrInvalid)
	}
	return parse(a)
}

// Remind is the change that sets task taskID's reminder to at, stored and
// summarised in at's zone.
func Remind(taskID nod.TaskID, at time.Time) (Call, error) {
	cs, _, err := parseReminder(Args{Tool: nod.ToolSetReminder, m: map[string]json.RawMessage{"task_id": MustJSON(taskID), "remind_at": MustJSON(at.Format(time.RFC3339))}, Zone: at.Location()})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// parseAddItems explodes add_multiple_checklist_items into one change per
// title; malformed elements are dropped with a note.
func parseAddItems(a Args) ([]Call, []string, error) { return explode(a, parseAddItem) }

// parseUpdateItems explodes update_checklist_items into one change per
// element; elements that change nothing are malformed.
func parseUpdateItems(a Args) ([]Call, []string, error) { return explode(a, parseUpdateItem) }

// parseRemoveItems explodes remove_checklist_items into one change per
// element.
func parseRemoveItems(a Args) ([]Call, []string, error) { return explode(a, parseRemoveItem) }

// explode parses each element of a batch call's items with parse, giving
// it the call's task_id.
func explode(a Args, parse func(Args) (Call, error)) ([]Call, []string, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, nil, err
	}
	els, _, err := a.Array("items", true)
	if err != nil {
		return nil, nil, err
	}
	if len(els) == 0 {
		return nil, nil, a.Errorf("items", "must hold at least one item")
	}
	var (
		out       []Call
		malformed int
		why       []string // what was wrong with them, each once
	)
	for _, e := range els {
		ea, ok := element(a.Tool, e)
		if !ok {
			malformed++
			continue
		}
		ea.m["task_id"] = MustJSON(id)
		c, err := parse(ea)
		if err != nil {
			malformed++
			if w := nod.Detail(err); !slices.Contains(why, w) {
				why = append(why, w)
			}
			continue
		}
		out = append(out, c)
	}
	return out, malformedNote(a.Tool, malformed, why), nil
}

// malformedNote says how many elements were skipped, what was wrong with
// them, and the shape an element has, so that a model can call again
// right.
func malformedNote(tool nod.Tool, n int, why []string) []string {
	if n == 0 {
		return nil
	}
	shape := map[nod.Tool]string{
		nod.ToolAddItems:    `{"title": "…"}`,
		nod.ToolUpdateItems: `{"id": "…", "isChecked": true, "title": "…", "reason": "…"} (id and at least one change)`,
		nod.ToolRemoveItems: `{"id": "…", "reason": "…"} (reason optional)`,
	}[tool]
	if shape == "" {
		shape = "an object with the fields of the tool's schema"
	}
	note := fmt.Sprintf("Skipped %d malformed item(s): each must be an object like %s.", n, shape)
	if len(why) > 0 {
		note += " " + strings.Join(why, "; ") + "."
	}
	return []string{note}
}
