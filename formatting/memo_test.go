package formatting

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
)

// Whatever was rendered before, by this locale or a zoned one, a kept
// render reads exactly as the template renders the same data afresh: for
// every template of plain data, in every language, in UTC and in
// Berlin, over data drawn from values the templates tell apart.
func TestKeptRendersReadAsRenderedAfresh(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	strs := []string{"", "create_task", "set_task_reminder", "update_task_due_date", "assign_task_labels", "set_task_status", "destroy", "mutate",
		"2026-12-01T10:00:00Z", "2026-12-01", "DONE", "P1", "check", "due", "Buy <b>milk</b>"}
	rng := rand.New(rand.NewPCG(1, 2))
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(strs[rng.IntN(len(strs))])
		case reflect.Bool:
			v.SetBool(rng.IntN(2) == 1)
		case reflect.Int, reflect.Int64, reflect.Int32:
			v.SetInt(int64(rng.IntN(4)))
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Field(i).CanSet() {
					fill(v.Field(i))
				}
			}
		}
	}
	afresh := func(l *Locale, name string, data any) (s string, ok bool) {
		defer func() {
			if recover() != nil {
				ok = false // data the template refuses: not what it is given
			}
		}()
		var b bytes.Buffer
		if err := l.t.ExecuteTemplate(&b, name, data); err != nil {
			return "", false
		}
		return strings.TrimSpace(b.String()), true
	}
	checked := 0
	for _, code := range Languages() {
		locales := []*Locale{For(code), For(code).In(berlin)}
		for name, typ := range declared {
			if typ != nil && !pureType(typ) {
				continue
			}
			var seen []any
			for range 40 {
				var data any
				if typ != nil {
					if len(seen) > 0 && rng.IntN(2) == 0 {
						data = seen[rng.IntN(len(seen))] // again: from the memo
					} else {
						v := reflect.New(typ).Elem()
						fill(v)
						data = v.Interface()
						seen = append(seen, data)
					}
				}
				l := locales[rng.IntN(2)]
				want, ok := afresh(l, name, data)
				if !ok {
					continue
				}
				if got := l.render(name, data); got != want {
					t.Fatalf("%s (%s) %s of %+v renders %q, afresh %q", code, l.Zone(), name, data, got, want)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d renders compared", checked)
	}
	// The zone is the locale's, not the data's: a reminder's summary.
	it := nod.ChangeItem{Tool: nod.ToolSetReminder, Field: nod.FieldReminder, After: "2026-12-01T10:00:00Z"}
	utc, de := For("en").Changes().Summary(it), For("en").In(berlin).Changes().Summary(it)
	if utc == de || !strings.Contains(de, "11:00") {
		t.Errorf("a reminder's summary reads %q in UTC and %q in Berlin", utc, de)
	}
}

// Only plain values are kept by: equal pointers, slices or interfaces
// may hold other data.
func TestOnlyPlainDataIsKept(t *testing.T) {
	type plain struct {
		A string
		N int
		B [2]bool
		D time.Duration
	}
	for _, c := range []struct {
		data any
		want bool
	}{
		{nil, true}, {"x", true}, {plain{}, true}, {summaryData{}, true},
		{&plain{}, false}, {[]string{"x"}, false}, {struct{ A any }{}, false}, {time.Time{}, false},
		{struct{ M map[string]int }{}, false},
	} {
		if got := pure(c.data); got != c.want {
			t.Errorf("pure(%s) = %v, want %v", fmt.Sprintf("%T", c.data), got, c.want)
		}
	}
}
