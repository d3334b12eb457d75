package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/tools"
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
		if pc.c.Field() == nod.FieldPriority && t.a.lex.otherPriority(v.Quote, pc.target) {
			return fmt.Sprintf("the person's words name the priority %s, not %s", strings.Join(t.a.lex.priorities(v.Quote), " or "), pc.target)
		}
		if other := t.otherTask(v.Quote, pc); other != "" {
			return fmt.Sprintf("the person's words name the task %q, not %q", other, pc.task.Title)
		}
	}
	return ""
}

// otherPriority reports whether words name a priority, and not p.
func (l *lexicon) otherPriority(words, p string) bool {
	named := l.priorities(words)
	return len(named) > 0 && !slices.Contains(named, p)
}

// priorities returns the priorities words name, in order, once each.
func (l *lexicon) priorities(words string) []string {
	var out []string
	for _, m := range l.priorityName.FindAllStringSubmatch(strings.ToLower(words), -1) {
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
	l := t.a.lex
	q := l.titleWords(quote)
	own := l.titleWords(pc.task.Title)
	for _, it := range pc.task.Checklist {
		own = append(own, l.titleWords(it.Title)...)
	}
	if _, ok := pc.c.(tools.AddItem); ok || pc.c.Field() == nod.FieldTitle {
		own = append(own, l.titleWords(pc.target)...)
	}
	for _, w := range q {
		if l.pointers.has(w) || slices.Contains(own, w) {
			return ""
		}
	}
	for _, o := range t.tasks.Tasks {
		if o.ID != pc.task.ID && names(q, l.titleWords(o.Title)) {
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
func (l *lexicon) titleWords(s string) []string {
	return slices.DeleteFunc(wordsOf(s), l.little.has)
}
