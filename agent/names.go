package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
)

// namesOther says why an explicit verdict's words cannot have asked for
// p (docs/design.md §3.3), or "": they name a priority, and not the one
// p sets ("set it to P2" for P1); or they name another task of the chat
// and nothing of the one p changes. What the words do not name, the
// classifier judges: these checks only ever make a change ask.
func (t *turn) namesOther(p *proposal, v confidence.Verdict) string {
	if !v.Explicit() || v.Quote == "" {
		return ""
	}
	for _, pc := range p.changes {
		// A new task's priority is a field of its own: coverCreate asks
		// for it alone when the words name another.
		if c, ok := pc.c.(scalar); ok && c.fld == nod.FieldPriority && otherPriority(v.Quote, c.value) {
			return fmt.Sprintf("the person's words name the priority %s, not %s", strings.Join(priorities(v.Quote), " or "), c.value)
		}
		if other := t.otherTask(v.Quote, pc); other != "" {
			return fmt.Sprintf("the person's words name the task %q, not %q", other, pc.task.Title)
		}
	}
	return ""
}

// otherPriority reports whether words name a priority, and not p.
func otherPriority(words, p string) bool {
	named := priorities(words)
	return len(named) > 0 && !slices.Contains(named, p)
}

// priorityRE finds a priority in folded words: "P1", "prio 1",
// "priority 1", "Priorität 1".
var priorityRE = regexp.MustCompile(`\b(?:p|prio|priority|priorität|prioritaet)\s?([0-3])\b`)

// priorities returns the priorities words name, in order, once each.
func priorities(words string) []string {
	var out []string
	for _, m := range priorityRE.FindAllStringSubmatch(strings.ToLower(words), -1) {
		if p := "P" + m[1]; !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// otherTask returns the title of a task of the chat that quote names
// while it names nothing of the task pc changes, or "". A task is named
// by two of its title's words in a row ("the login bug" names "Fix login
// bug") or by the one word of its title; the changed task by any word of
// its title, of its checklist or of the title or item pc sets, or by a
// word that points at it ("it", "this", "es"). Naming any of it is
// enough: a request may name two tasks ("as high as the login bug").
func (t *turn) otherTask(quote string, pc prepared) string {
	if pc.task == nil {
		return ""
	}
	q := titleWords(quote)
	own := titleWords(pc.task.Title)
	for _, it := range pc.task.Checklist {
		own = append(own, titleWords(it.Title)...)
	}
	if _, ok := pc.c.(addItem); ok || pc.c.field() == nod.FieldTitle {
		own = append(own, titleWords(pc.target)...)
	}
	for _, w := range q {
		if pointers[w] || slices.Contains(own, w) {
			return ""
		}
	}
	for _, o := range t.tasks.Tasks {
		if o.ID != pc.task.ID && names(q, titleWords(o.Title)) {
			return o.Title
		}
	}
	return ""
}

// names reports whether words q name a title of words ws: its only
// word, or two of its words in a row.
func names(q, ws []string) bool {
	if len(ws) == 1 {
		return slices.Contains(q, ws[0])
	}
	for i := 0; i+1 < len(q); i++ {
		for j := 0; j+1 < len(ws); j++ {
			if q[i] == ws[j] && q[i+1] == ws[j+1] {
				return true
			}
		}
	}
	return false
}

// titleWords are the words of s that can tell tasks apart: lower case,
// without the little words every sentence has.
func titleWords(s string) []string {
	return slices.DeleteFunc(wordsOf(s), func(w string) bool { return little[w] })
}

var little = wordSet("the", "a", "an", "to", "for", "of", "and", "or", "in", "on", "at", "with", "my", "our", "your", "from", "by",
	"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "und", "oder", "für", "mit", "zu", "zum",
	"zur", "im", "am", "an", "auf", "von", "vom", "in")

// pointers point at a task without naming it: the one talked about.
var pointers = wordSet("it", "its", "this", "that", "these", "those", "them", "they", "one",
	"es", "ihn", "ihm", "sie", "dies", "diese", "dieses", "diesen", "diesem", "dieser")

func wordSet(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
