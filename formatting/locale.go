package formatting

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
)

// Every language is one file, templates/<code>.tmpl, defining every
// template English defines; a test holds them to that.
//
//go:embed templates/*.tmpl
var templateFS embed.FS

// DefaultLanguage is what a person whose language nod does not speak reads.
const DefaultLanguage = "en"

// Locale renders nod's messages in one language. It is immutable and safe
// for concurrent use.
type Locale struct {
	code   string
	t      *template.Template
	months []string
	zone   *time.Location // where dates and times are shown; nil: UTC
	memo   *memo          // its language's renders, shared by its zones: by locale, template and data
}

// In returns the locale showing times in zone, the chat's. Locales are
// kept per language and zone, so a chat's messages cost no parsing.
func (l *Locale) In(zone *time.Location) *Locale {
	if zone == nil || zone.String() == l.Zone().String() {
		return l
	}
	key := l.code + " " + zone.String()
	if c, ok := zoned.Load(key); ok {
		return c.(*Locale)
	}
	c := *l
	c.zone = zone // its renders share its language's memo, under its own key (memoKey)
	// The templates' functions (stamp) must see this locale's zone.
	c.t = template.Must(l.t.Clone()).Funcs(c.funcs())
	actual, _ := zoned.LoadOrStore(key, &c)
	return actual.(*Locale)
}

// zoned holds the locales In made, by language and zone.
var zoned sync.Map

// Zone is where the locale shows times.
func (l *Locale) Zone() *time.Location {
	if l.zone == nil {
		return time.UTC
	}
	return l.zone
}

// locales are parsed once from the embedded files; a file that does not
// parse fails every test.
var locales = func() map[string]*Locale {
	files, err := templateFS.ReadDir("templates")
	if err != nil {
		panic(err)
	}
	out := map[string]*Locale{}
	for _, f := range files {
		code := strings.TrimSuffix(f.Name(), ".tmpl")
		l := &Locale{code: code, memo: newMemo()}
		// A key a caller forgot fails the tests that render it, instead of
		// showing the person "<no value>".
		l.t = template.Must(template.New(code).Option("missingkey=error").Funcs(l.funcs()).ParseFS(templateFS, path.Join("templates", f.Name())))
		l.months = strings.Fields(l.Render(monthNames))
		if len(l.months) != 12 {
			panic(fmt.Sprintf("formatting: %s: template months names %d months", f.Name(), len(l.months)))
		}
		out[code] = l
	}
	return out
}()

// Languages lists the codes of the languages nod speaks, sorted.
func Languages() []string {
	out := make([]string, 0, len(locales))
	for c := range locales {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// For returns the locale for a Telegram language_code ("de", "de-AT"),
// falling back to English.
func For(code string) *Locale {
	code = strings.ToLower(strings.TrimSpace(code))
	if base, _, ok := strings.Cut(code, "-"); ok {
		code = base
	}
	if l, ok := locales[code]; ok {
		return l
	}
	return locales[DefaultLanguage]
}

// Supported reports whether nod speaks the language of code.
func Supported(code string) bool {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(code)), "-")
	_, ok := locales[base]
	return ok
}

// AnswerWords are the words of an answer to a change set in every
// language nod speaks, from each language's template file: a German "ja
// zu 1 und 3" in an English chat means the same.
func AnswerWords() answer.Words {
	return answer.Words{Yes: union(wordsYes), No: union(wordsNo), Not: union(wordsNot), To: union(wordsTo), And: union(wordsAnd),
		Range: union(wordsRange), All: union(wordsAll), Except: union(wordsExcept), But: union(wordsBut), Too: union(wordsToo),
		Refuse: union(wordsRefuse)}
}

// Code is the locale's language code.
func (l *Locale) Code() string { return l.code }

func (l *Locale) funcs() template.FuncMap {
	return template.FuncMap{
		"h":          Escape,
		"md":         ModelText,
		"date":       l.Date,
		"stamp":      l.stampAny,
		"day":        l.RelativeDay,
		"when":       l.relativeStamp,
		"minutes":    l.Minutes,
		"span":       func(d time.Duration) string { return l.span(d, false) },
		"spanIn":     func(d time.Duration) string { return l.span(d, true) },
		"statusName": func(s any) string { return l.Status(nod.Status(fmt.Sprint(s))) },
		"statusIcon": statusIcon,
		"neg":        func(i int) int { return -i },
		"mod":        func(i, n int) int { return i % n },
		"list":       func(s ...string) []string { return s },
		"field":      func(f any) string { return l.Field(nod.Field(fmt.Sprint(f))) },
		"value":      func(f, raw string) string { return l.scalarValue(nod.Field(f), raw) },
		"q":          l.Quote,
		"join":       func(ls []string) string { return strings.Join(ls, ", ") },
		"inc":        func(i int) int { return i + 1 },
		"clock":      func(t *time.Time) string { return t.In(l.Zone()).Format("15:04") },
		"upcoming":   l.upcoming,
		"count":      l.count,
		"cut": func(s string, n int) string {
			t, left := truncate(s, n)
			if left > 0 {
				t += " " + l.Render(moreCharacters.With(left))
			}
			return t
		},
		"done": func(items []nod.ChecklistItem) int {
			n := 0
			for _, it := range items {
				if it.Checked {
					n++
				}
			}
			return n
		},
	}
}

// Render executes the template of c over its data. A template that fails
// to run is a programming error caught by the tests.
func (l *Locale) Render(c Content) string {
	name, data := c.content()
	return l.render(name, data)
}

func (l *Locale) render(name string, data any) string {
	key, kept := memoKey{l, name, data}, pure(data)
	if kept {
		if s, ok := l.memo.get(key); ok {
			return s
		}
	}
	var b bytes.Buffer
	if err := l.t.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("formatting: %s template %s: %v", l.code, name, err))
	}
	s := strings.TrimSpace(b.String())
	if kept {
		l.memo.add(key, s)
	}
	return s
}

// Text renders a template with no buttons.
func (l *Locale) Text(c Content) Message { return Message{HTML: l.Render(c)} }

// Notice renders a short notice, the text of a callback answer: plain
// text, at most 200 characters.
func (l *Locale) Notice(c Content) string {
	s := PlainText(l.Render(c))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// The templates of language data.
var (
	monthNames     = fixed("months")
	dateTmpl       = define[dateParts]("date")
	stampTmpl      = define[dateParts]("stamp")
	minutesTmpl    = define[hoursMinutes]("minutes")
	lateTmpl       = define[hoursMinutes]("days_hours")
	spanTmpl       = define[spanParts]("span")
	noneTmpl       = fixed("none")
	thousands      = fixed("thousands")
	quoteTmpl      = define[string]("quote")
	moreCharacters = define[int]("more_characters")
	statusTmpl     = define[string]("status")
	fieldTmpl      = define[string]("field")
)

// dateParts is what the date and stamp templates arrange.
type dateParts struct {
	Day   int
	Month string
	Year  int
	Clock string
}

func (l *Locale) parts(t time.Time) dateParts { return l.partsIn(t.In(l.Zone())) }

// partsIn is t's parts on its own clock.
func (l *Locale) partsIn(t time.Time) dateParts {
	return dateParts{Day: t.Day(), Month: l.months[t.Month()-1], Year: t.Year(), Clock: t.Format("15:04")}
}

// Date renders a YYYY-MM-DD date as the language writes it ("15 Mar
// 2026"); empty is the language's "none".
func (l *Locale) Date(d string) string {
	if d == "" {
		return l.Render(noneTmpl)
	}
	t, err := time.Parse(nod.DateLayout, d)
	if err != nil {
		return d
	}
	// A date is a day of the calendar, in no zone.
	return l.Render(dateTmpl.With(dateParts{Day: t.Day(), Month: l.months[t.Month()-1], Year: t.Year()}))
}

// Stamp renders a moment, to the minute, in the locale's zone.
func (l *Locale) Stamp(t time.Time) string { return l.Render(stampTmpl.With(l.parts(t))) }

func (l *Locale) stampAny(t any) string {
	switch v := t.(type) {
	case time.Time:
		return l.Stamp(v)
	case *time.Time:
		if v != nil {
			return l.Stamp(*v)
		}
	}
	return "—"
}

// Minutes renders an estimate ("2 h", "1 h 30 min"); nil is "—".
func (l *Locale) Minutes(m *int) string {
	if m == nil {
		return "—"
	}
	return l.Render(minutesTmpl.With(hoursMinutes{H: *m / 60, M: *m % 60}))
}

// hoursMinutes is a duration as the minutes and days_hours templates
// write it.
type hoursMinutes struct{ D, H, M int }

// span renders how long nod keeps or waits for something ("30 days",
// "10 minutes") in its largest whole unit; in, for a phrase like "within",
// where German declines the noun ("innerhalb von 30 Tagen"). The spans
// come from configuration, so the text says what this nod does.
func (l *Locale) span(d time.Duration, in bool) string {
	p := spanParts{N: int(d / time.Minute), Unit: "minute", Dative: in}
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		p.N, p.Unit = int(d/(24*time.Hour)), "day"
	case d >= time.Hour && d%time.Hour == 0:
		p.N, p.Unit = int(d/time.Hour), "hour"
	}
	return l.Render(spanTmpl.With(p))
}

// spanParts is a duration as the span template writes it.
type spanParts struct {
	N      int
	Unit   string // day, hour or minute
	Dative bool
}

// Status renders a status ("In progress").
func (l *Locale) Status(s nod.Status) string {
	if s == "" {
		return "—"
	}
	return l.Render(statusTmpl.With(string(s)))
}

// Field names a task field ("Priority").
func (l *Locale) Field(f nod.Field) string { return l.Render(fieldTmpl.With(string(f))) }

// Quote quotes a text as the language does.
func (l *Locale) Quote(s string) string { return l.Render(quoteTmpl.With(s)) }

// count writes a number with the language's thousands separator: 10,000
// in English, 10.000 in German.
func (l *Locale) count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	sep := l.Render(thousands)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + sep + s[i:]
	}
	return s
}
