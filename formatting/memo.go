package formatting

import (
	"reflect"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// A template renders the same text from the same data: nothing a locale
// runs reads the clock or anything else outside its data and zone. So a
// language keeps what its locales rendered lately from data that is a
// plain value, and a change set redrawn on every tap, with its summaries,
// header, footer and buttons, runs each of its templates once:
// text/template takes tens of microseconds for a summary, most of a
// redraw. One memo a language, whatever the zones its chats are in,
// bounds the memory it takes.
const memoSize = 1024

type memoKey struct {
	l    *Locale // the zone's: a time reads differently in another
	name string
	data any // of a pure type: compared by value, all of it
}

type memo struct{ c *lru.Cache[memoKey, string] }

func newMemo() *memo {
	c, err := lru.New[memoKey, string](memoSize)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &memo{c}
}

func (m *memo) get(k memoKey) (string, bool) { return m.c.Get(k) }
func (m *memo) add(k memoKey, s string)      { m.c.Add(k, s) }

// pureTypes holds, by type, whether data of it is a plain value (pure).
var pureTypes sync.Map // reflect.Type → bool

// pure reports whether data is nil or a plain value: strings, numbers
// and booleans, in structs and arrays of them. Equal values of such a
// type render equally; a pointer, slice, map or interface inside could
// hold other data under an equal key, or none that compares.
func pure(data any) bool {
	if data == nil {
		return true
	}
	t := reflect.TypeOf(data)
	if p, ok := pureTypes.Load(t); ok {
		return p.(bool)
	}
	p := pureType(t)
	pureTypes.Store(t, p)
	return p
}

func pureType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	case reflect.Array:
		return pureType(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pureType(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
