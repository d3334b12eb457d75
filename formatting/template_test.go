package formatting

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"text/template/parse"
	"time"

	"github.com/nodbot/nod"
)

// samples are the data of the templates a zero value cannot render: a
// nil pointer has no fields.
var samples = map[string]any{
	"toggled":         &nod.ChecklistItem{Title: "Write tests", Checked: true},
	"already_toggled": &nod.ChecklistItem{Title: "Write tests"},
}

// templateNames lists the templates a language defines.
func templateNames(l *Locale) []string {
	var out []string
	for _, tm := range l.t.Templates() {
		if tm.Name() != l.code+".tmpl" && tm.Name() != l.code && tm.Tree != nil {
			out = append(out, tm.Name())
		}
	}
	slices.Sort(out)
	return out
}

// Every template of every language is declared with the type of its
// data, and renders from it; a template nobody declared, or a declaration
// no template answers, fails here.
func TestEveryTemplateRendersFromItsType(t *testing.T) {
	for _, code := range Languages() {
		l := For(code).In(time.UTC)
		names := templateNames(l)
		for name := range declared {
			if !slices.Contains(names, name) {
				t.Errorf("%s.tmpl does not define %q, which Go declares", code, name)
			}
		}
		for _, name := range names {
			typ, ok := declared[name]
			if !ok {
				t.Errorf("%s.tmpl: template %q has no typed declaration (define, fixed or partial)", code, name)
				continue
			}
			var data any
			if s, ok := samples[name]; ok {
				if reflect.TypeOf(s) != typ {
					t.Errorf("sample of %q is a %T, the template reads a %v", name, s, typ)
				}
				data = s
			} else if typ != nil {
				data = reflect.Zero(typ).Interface()
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: %v", code, r)
					}
				}()
				l.render(name, data)
			}()
		}
	}
}

// A field a template reads must exist in the type of its data, in every
// branch, even those the zero value does not take; and a template
// included by another is passed the data it is declared with.
func TestTemplateFieldsExist(t *testing.T) {
	for _, code := range Languages() {
		l := For(code)
		for _, name := range templateNames(l) {
			typ, ok := declared[name]
			if !ok {
				continue // reported by TestEveryTemplateRendersFromItsType
			}
			c := fieldChecker{name: code + "/" + name, root: typ}
			c.walk(l.t.Lookup(name).Tree.Root, known(typ))
			for _, err := range c.errs {
				t.Error(err)
			}
		}
	}
}

// dotType is the type of dot where a template is checked; ok false when
// the checker cannot tell.
type dotType struct {
	t  reflect.Type // nil: no data
	ok bool
}

func known(t reflect.Type) dotType { return dotType{t, true} }

var unknown = dotType{}

type fieldChecker struct {
	name string
	root reflect.Type
	errs []error
}

func (c *fieldChecker) walk(n parse.Node, dot dotType) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, m := range n.Nodes {
			c.walk(m, dot)
		}
	case *parse.ActionNode:
		c.pipe(n.Pipe, dot)
	case *parse.IfNode:
		c.pipe(n.Pipe, dot)
		c.walk(n.List, dot)
		c.walk(n.ElseList, dot)
	case *parse.WithNode:
		c.walk(n.List, c.pipe(n.Pipe, dot))
		c.walk(n.ElseList, dot)
	case *parse.RangeNode:
		inner := unknown
		if p := c.pipe(n.Pipe, dot); p.ok && p.t != nil {
			switch t := deref(p.t); t.Kind() {
			case reflect.Slice, reflect.Array, reflect.Map:
				inner = known(t.Elem())
			}
		}
		c.walk(n.List, inner)
		c.walk(n.ElseList, dot)
	case *parse.TemplateNode:
		arg := known(nil)
		if n.Pipe != nil {
			arg = c.pipe(n.Pipe, dot)
		}
		want, ok := declared[n.Name]
		if ok && arg.ok && !fits(arg.t, want) {
			c.errs = append(c.errs, fmt.Errorf("%s: passes template %s a %v; it is declared to read a %v", c.name, n.Name, arg.t, want))
		}
	}
}

// fits reports whether data of type got may go where want is declared:
// the same type, or a named kind of the same basic kind (nod.Mode for a
// string).
func fits(got, want reflect.Type) bool {
	switch {
	case got == nil || want == nil:
		return got == want
	case got.AssignableTo(want):
		return true
	}
	basic := func(k reflect.Kind) bool { return k >= reflect.Bool && k <= reflect.Complex128 || k == reflect.String }
	return got.Kind() == want.Kind() && basic(got.Kind())
}

// pipe checks a pipeline's fields and returns the type it yields, where
// that is a field or dot.
func (c *fieldChecker) pipe(p *parse.PipeNode, dot dotType) dotType {
	if p == nil {
		return unknown
	}
	out := unknown
	for _, cmd := range p.Cmds {
		for i, arg := range cmd.Args {
			t := c.arg(arg, dot)
			if len(p.Cmds) == 1 && len(cmd.Args) == 1 && i == 0 {
				out = t
			}
		}
	}
	return out
}

func (c *fieldChecker) arg(n parse.Node, dot dotType) dotType {
	switch n := n.(type) {
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		return c.fields(dot, n.Ident, n.String())
	case *parse.VariableNode:
		if n.Ident[0] == "$" && len(n.Ident) > 1 {
			return c.fields(known(c.root), n.Ident[1:], n.String())
		}
	case *parse.PipeNode:
		c.pipe(n, dot)
	case *parse.ChainNode:
		if p, ok := n.Node.(*parse.PipeNode); ok {
			c.pipe(p, dot)
		}
	}
	return unknown
}

// fields follows idents from dot, a field or method at a time.
func (c *fieldChecker) fields(dot dotType, idents []string, src string) dotType {
	if !dot.ok {
		return unknown
	}
	t := dot.t
	for _, id := range idents {
		if t == nil {
			c.errs = append(c.errs, fmt.Errorf("%s: reads %s of a template that has no data", c.name, src))
			return unknown
		}
		t = deref(t)
		if m, ok := reflect.PointerTo(t).MethodByName(id); ok {
			if m.Type.NumOut() == 0 {
				return unknown
			}
			t = m.Type.Out(0)
			continue
		}
		if t.Kind() != reflect.Struct {
			return unknown // a map or an interface: nothing to check
		}
		f, ok := t.FieldByName(id)
		if !ok {
			c.errs = append(c.errs, fmt.Errorf("%s: reads %s, but %v has no field or method %s", c.name, src, t, id))
			return unknown
		}
		t = f.Type
	}
	return known(t)
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
