package storage

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// The stored form of a change item's typed values (column detail):
// storage's own, with explicit names, so that renaming a Go field never
// breaks an item already written. Migration 00013 wrote the items stored
// before in this shape: an item's state is the agent's old before/after
// value with the item's id added, a new task the create_task arguments.
type (
	detailRecord struct {
		Reason string         `json:"reason,omitempty"`
		Why    string         `json:"why,omitempty"`
		Before *detailItem    `json:"item_before,omitempty"`
		After  *detailItem    `json:"item_after,omitempty"`
		Task   *detailNewTask `json:"task,omitempty"`
	}
	detailItem struct {
		ID      nod.ItemID `json:"id"`
		Title   string     `json:"title"`
		Checked bool       `json:"checked"`
		By      string     `json:"by"`
		At      *time.Time `json:"at,omitempty"`
	}
	detailNewTask struct {
		Title           string   `json:"title"`
		Description     string   `json:"description,omitempty"`
		Status          string   `json:"status,omitempty"`
		Priority        string   `json:"priority"`
		EstimateMinutes *int     `json:"estimate_minutes,omitempty"`
		DueDate         string   `json:"due_date,omitempty"`
		Labels          []string `json:"labels,omitempty"`
	}
)

// recordDetail is the stored form of it's typed values; nil when it has
// none.
func recordDetail(it nod.ChangeItem) *detailRecord {
	r := detailRecord{Reason: it.Reason, Why: it.Why, Before: recordDetailItem(it.ItemBefore), After: recordDetailItem(it.ItemAfter)}
	if t := it.NewTask; t != nil {
		r.Task = &detailNewTask{Title: t.Title, Description: t.Description, Status: string(t.Status), Priority: string(t.Priority),
			EstimateMinutes: t.EstimateMinutes, DueDate: t.DueDate, Labels: t.Labels}
	}
	if r == (detailRecord{}) {
		return nil
	}
	return &r
}

// fill sets it's typed values from r.
func (r *detailRecord) fill(it *nod.ChangeItem) {
	if r == nil {
		return
	}
	it.Reason, it.Why, it.ItemBefore, it.ItemAfter = r.Reason, r.Why, r.Before.item(), r.After.item()
	if t := r.Task; t != nil {
		status := nod.Status(t.Status)
		if status == "" {
			status = nod.StatusOpen // create_task's default, left out of items written before 00013
		}
		it.NewTask = &nod.Task{Title: t.Title, Description: t.Description, Status: status, Priority: nod.Priority(t.Priority),
			EstimateMinutes: t.EstimateMinutes, DueDate: t.DueDate, Labels: t.Labels}
	}
}

// encodeDetail is the detail column of it: "" when it has none.
func encodeDetail(it nod.ChangeItem) (string, error) {
	r := recordDetail(it)
	if r == nil {
		return "", nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("encode item detail: %w", err)
	}
	return string(b), nil
}

// decodeDetail fills it's typed values from its detail column.
func decodeDetail(it *nod.ChangeItem, s string) error {
	if s == "" {
		return nil
	}
	var r detailRecord
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return fmt.Errorf("decode detail of change item %s: %w", it.ID, err)
	}
	r.fill(it)
	return nil
}

func recordDetailItem(it *nod.ChecklistItem) *detailItem {
	if it == nil {
		return nil
	}
	return &detailItem{ID: it.ID, Title: it.Title, Checked: it.Checked, By: string(it.CheckedBy.Normalize()), At: it.CheckedAt}
}

func (d *detailItem) item() *nod.ChecklistItem {
	if d == nil {
		return nil
	}
	return &nod.ChecklistItem{ID: d.ID, Title: d.Title, Checked: d.Checked, CheckedBy: nod.Actor(d.By).Normalize(), CheckedAt: d.At}
}
