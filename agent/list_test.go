package agent_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// listResult is a list_tasks result.
type listResult struct {
	Tasks []struct {
		ID          string  `json:"id"`
		Description *string `json:"description"`
		Checklist   []any   `json:"checklist"`
		Truncated   string  `json:"truncated"`
	} `json:"tasks"`
	Total      int     `json:"total"`
	NextCursor *string `json:"next_cursor"`
}

// pageThrough runs one turn whose model calls list_tasks with args until
// next_cursor is null, and returns every result.
func (e *env) pageThrough(t *testing.T, args map[string]any) []listResult {
	t.Helper()
	var results []listResult
	e.LLM.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Model == clfM {
			return e.Clf(r)
		}
		last := r.Messages[len(r.Messages)-1]
		a := maps(args)
		if last.Role == "tool" {
			if len(last.Content) >= 64<<10 {
				t.Errorf("a list_tasks result of %d bytes", len(last.Content))
			}
			var res listResult
			if err := json.Unmarshal([]byte(last.Content), &res); err != nil {
				t.Errorf("list_tasks = %.300s: %v", last.Content, err)
				return openaitest.Text("broken")
			}
			results = append(results, res)
			if res.NextCursor == nil {
				return openaitest.Text("That is all of them.")
			}
			a["cursor"] = *res.NextCursor
		}
		return openaitest.Calls(call(fmt.Sprint("l", len(results)), "list_tasks", a))
	})
	res, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: "list everything"})
	if err != nil || res.StepsExhausted {
		t.Fatalf("Turn: %v, steps exhausted %v", err, res.StepsExhausted)
	}
	return results
}

func maps(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// seen returns the ids of every page, in order, and checks each page's
// total.
func seen(t *testing.T, pages []listResult, total int) []string {
	t.Helper()
	var ids []string
	for i, p := range pages {
		if p.Total != total {
			t.Errorf("page %d: total %d, want %d", i, p.Total, total)
		}
		for _, task := range p.Tasks {
			ids = append(ids, task.ID)
		}
	}
	return ids
}

// list_tasks pages with limit and cursor, from the system prompt's
// listing (30 tasks, all in the prompt) and from storage (130) alike:
// every task the filter matches, once, in listing order.
func TestListTasksPages(t *testing.T) {
	t.Parallel()
	for _, size := range []int{30, 130} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			forEachDialect(t, func(t *testing.T, e *env) {
				var tasks []nod.Task
				var all, reports []string
				for i := range size {
					id := fmt.Sprintf("s%03d", i)
					task := nod.Task{ID: nod.TaskID(id), ChatID: chat, Title: fmt.Sprintf("Task %d", i), Status: nod.StatusOpen, Priority: nod.P2}
					if i%4 == 0 {
						task.Description = "Quarterly REPORT"
						reports = append(reports, id)
					}
					tasks, all = append(tasks, task), append(all, id)
				}
				if err := e.DB.Tasks().ImportTasks(t.Context(), tasks); err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					args map[string]any
					want []string
				}{
					{map[string]any{"limit": 7, "query": "report"}, reports},
					{map[string]any{"limit": "19", "status": "open"}, all},
					{map[string]any{}, all},
				} {
					pages := e.pageThrough(t, c.args)
					if got := seen(t, pages, len(c.want)); !slices.Equal(got, c.want) {
						t.Errorf("list_tasks %v paged %v, want %v", c.args, got, c.want)
					}
				}
				// The prompt lists 50 at most and says how many there are.
				system := e.LLM.RequestsFor(agentM)[0].Messages[0].Content
				lines := strings.Count(system, "\n- s")
				if size > 50 && (lines != 50 || !strings.Contains(system, fmt.Sprintf("The user has %d tasks. These 50 matter most now", size))) ||
					size <= 50 && (lines != size || !strings.Contains(system, fmt.Sprintf("The user's tasks (%d,", size))) {
					t.Errorf("the system prompt lists %d tasks:\n%s", lines, system)
				}
			})
		})
	}
}

// A list_tasks result stays under 64 KB however large the tasks: a page is
// cut short with next_cursor pointing on, and a task too large alone is
// shortened and says so.
func TestListTasksUnder64KB(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		var tasks []nod.Task
		var want []string
		huge := nod.Task{ID: "huge", ChatID: chat, Title: strings.Repeat("<", nod.MaxTitleLen), Status: nod.StatusOpen, Priority: nod.P2,
			Description: strings.Repeat("ü&", nod.MaxDescriptionLen/3)}
		for i := range nod.MaxChecklist {
			huge.Checklist = append(huge.Checklist, nod.ChecklistItem{ID: nod.ItemID(fmt.Sprintf("h%d", i)), Title: strings.Repeat(">", nod.MaxTitleLen), CheckedBy: nod.ActorUser})
		}
		tasks, want = append(tasks, huge), append(want, "huge")
		for i := range 60 {
			id := fmt.Sprintf("big%02d", i)
			tasks = append(tasks, nod.Task{ID: nod.TaskID(id), ChatID: chat, Title: id, Description: strings.Repeat("long words ", 500), Status: nod.StatusOpen, Priority: nod.P2})
			want = append(want, id)
		}
		if err := e.DB.Tasks().ImportTasks(t.Context(), tasks); err != nil {
			t.Fatal(err)
		}
		pages := e.pageThrough(t, map[string]any{"limit": 200})
		if got := seen(t, pages, len(tasks)); !slices.Equal(got, want) {
			t.Errorf("paged %v, want %v", got, want)
		}
		if len(pages) < 3 || len(pages[0].Tasks) != 1 || pages[0].Tasks[0].Truncated == "" || len(pages[1].Tasks) == 60 {
			t.Errorf("%d pages; the first holds %d tasks (truncated %q), the second %d", len(pages), len(pages[0].Tasks), pages[0].Tasks[0].Truncated, len(pages[1].Tasks))
		}
		for _, p := range pages[1:] {
			for _, task := range p.Tasks {
				if task.Truncated != "" || task.Description == nil || len(*task.Description) != 5500 {
					t.Errorf("task %s shortened, though it fits a page alone", task.ID)
				}
			}
		}
	})
}
