package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// maxListBytes bounds a list_tasks result, whatever the chat holds: a
// page is cut short (next_cursor pointing on) rather than grow past it.
const maxListBytes = 64<<10 - 1

// listTail is room kept for the result's end: the total and a cursor.
const listTail = 64

// listTasks reads a page of the chat's tasks: from the system prompt's
// listing while the turn has changed nothing and that listing holds every
// task, else from storage.
func (t *turn) listTasks(ctx context.Context, f nod.TaskFilter, req nod.PageRequest) (nod.TaskPage, error) {
	if t.listed && t.tasks.Total == len(t.tasks.Tasks) {
		if page, ok := pageOf(t.tasks, f, req); ok {
			return page, nil
		}
	}
	return t.a.tasks.TaskPage(ctx, t.req.ChatID, f, req)
}

// pageOf reads a page of a listing that holds every task, as storage
// would; false when the cursor is not one of its tasks' (storage knows
// where it leads).
func pageOf(all nod.TaskPage, f nod.TaskFilter, req nod.PageRequest) (nod.TaskPage, bool) {
	if req.Before != "" {
		return nod.TaskPage{}, false
	}
	order := make([]int, len(all.Tasks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return nod.CompareCursors(all.Cursors[a], all.Cursors[b]) })
	started := req.After == ""
	found := started
	out := nod.TaskPage{Earlier: req.After != ""}
	for _, i := range order {
		match := f.Match(all.Tasks[i])
		if match {
			out.Total++
		}
		switch {
		case !started:
			started = all.Cursors[i] == req.After
			found = found || started
		case !match:
		case len(out.Tasks) == req.Limit:
			out.Later = true
		default:
			out.Tasks, out.Cursors = append(out.Tasks, all.Tasks[i]), append(out.Cursors, all.Cursors[i])
		}
	}
	return out, found
}

// listJSON renders a page as list_tasks returns it, under maxListBytes:
// tasks that do not fit wait for the next page; a first task too large
// on its own is shortened, and says so.
func listJSON(p nod.TaskPage, zone *time.Location, now time.Time) string {
	var b bytes.Buffer
	b.WriteString(`{"tasks":[`)
	next := ""
	if p.Later && len(p.Cursors) > 0 {
		next = p.Cursors[len(p.Cursors)-1]
	}
	for i, task := range p.Tasks {
		item := tools.MustJSON(toJSON(task, zone, now))
		room := maxListBytes - listTail - b.Len() - 1
		if len(item) > room {
			if i > 0 {
				next = p.Cursors[i-1]
				break
			}
			item = fitJSON(task, room, zone, now)
			if len(p.Tasks) > 1 || p.Later {
				next = p.Cursors[0]
			}
			b.Write(item)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(item)
	}
	cursor := []byte("null")
	if next != "" {
		cursor, _ = json.Marshal(next)
	}
	fmt.Fprintf(&b, `],"total":%d,"next_cursor":%s}`, p.Total, cursor)
	return b.String()
}

// fitJSON renders a task in at most room bytes, halving its description,
// then its checklist, then dropping its labels until it fits.
func fitJSON(t nod.Task, room int, zone *time.Location, now time.Time) json.RawMessage {
	j := toJSON(t, zone, now)
	j.Truncated = "shortened to fit the listing: call get_task for the whole task before changing it"
	for {
		out := tools.MustJSON(j)
		switch {
		case len(out) <= room:
			return out
		case j.Description != nil && *j.Description != "":
			r := []rune(*j.Description)
			d := string(r[:len(r)/2])
			j.Description = &d
		case len(j.Checklist) > 0:
			j.Checklist = j.Checklist[:len(j.Checklist)/2]
		case len(j.Labels) > 0:
			j.Labels = []string{}
		default:
			return out // a title is at most nod.MaxTitleLen
		}
	}
}
