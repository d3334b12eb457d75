package formatting

import (
	"fmt"
	"reflect"
)

// Content is a template with the data it renders: what Text, Notice and
// Render take. Only the templates this package declares make one, each
// from data of the type it reads, so that a caller cannot name a template
// that does not exist or hand one data of another shape.
type Content interface {
	content() (name string, data any)
}

// Template is a template that renders data of type T.
type Template[T any] struct{ name string }

// With is the template over data.
func (t Template[T]) With(data T) Content { return filled{t.name, data} }

// Fixed is a template that reads no data.
type Fixed struct{ name string }

func (f Fixed) content() (string, any) { return f.name, nil }

type filled struct {
	name string
	data any
}

func (f filled) content() (string, any) { return f.name, f.data }

// declared is the type of data each template reads, by name; nil for a
// Fixed one. A test renders every template of every language from its
// type and fails on a template declared nowhere.
var declared = map[string]reflect.Type{}

// define declares the template name, rendered from a T.
func define[T any](name string) Template[T] {
	declare(name, reflect.TypeFor[T]())
	return Template[T]{name}
}

// fixed declares the template name, which reads no data.
func fixed(name string) Fixed {
	declare(name, nil)
	return Fixed{name}
}

// partial declares a template only other templates include, with the
// type of the data they pass it.
func partial[T any](name string) {
	declare(name, reflect.TypeFor[T]())
}

func declare(name string, t reflect.Type) {
	if _, ok := declared[name]; ok {
		panic(fmt.Sprintf("formatting: template %s declared twice", name))
	}
	declared[name] = t
}
