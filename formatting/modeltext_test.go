package formatting_test

import (
	"strings"
	"testing"

	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
)

// A model's Markdown bold and code reach the person as bold and code, not
// as asterisks; everything else stays as written, and stays escaped. The
// tags always nest: a code span binds tighter than bold (as in CommonMark),
// so bold holds whole code spans or none.
func TestModelText(t *testing.T) {
	for in, want := range map[string]string{
		"I'd start with **Fix login bug**, then **Launch plan**.": "I'd start with <b>Fix login bug</b>, then <b>Launch plan</b>.",
		"Run `/tasks` to see them all.":                           "Run <code>/tasks</code> to see them all.",
		"**<script>** & `a<b`":                                    "<b>&lt;script&gt;</b> &amp; <code>a&lt;b</code>",
		"5 * 3 = 15, my_task_name, *maybe*":                       "5 * 3 = 15, my_task_name, *maybe*",
		"an unclosed **bold\nacross lines**":                      "an unclosed **bold\nacross lines**",
		"empty **** stays":                                        "empty **** stays",
		"**a `b** c`":                                             "**a <code>b** c</code>",
		"**run `/tasks`** now":                                    "<b>run <code>/tasks</code></b> now",
		"**`x`**":                                                 "<b><code>x</code></b>",
		"`**not bold**` but **bold `a*b`**":                       "<code>**not bold**</code> but <b>bold <code>a*b</code></b>",
		"***a**":                                                  "*<b>a</b>",
		"**a `b**` c**":                                           "<b>a <code>b**</code> c</b>",
		"`a **b` c** d":                                           "<code>a **b</code> c** d",
		"**5 * 3**":                                               "**5 * 3**",
		"** not bold ** but **Ünïcödé**":                          "** not bold ** but <b>Ünïcödé</b>",
		"**a `b** c`, then **Launch plan**.":                      "**a <code>b** c</code>, then <b>Launch plan</b>.",
	} {
		got := formatting.ModelText(in)
		if got != want {
			t.Errorf("ModelText(%q) = %q, want %q", in, got, want)
		}
		if formatting.VisibleLen(got) > len([]rune(in)) {
			t.Errorf("ModelText(%q) shows more than was written: %q", in, got)
		}
		if _, e := telegramtest.ParseHTML(got); e != nil {
			t.Errorf("ModelText(%q) = %q, which Telegram refuses: %s", in, got, e.Description)
		}
	}
}

// Whatever the model writes, Telegram takes ModelText's HTML (tags closed
// and nested, text escaped), and the person reads all of it but the marks
// that became tags; formatting.PlainText, nod's fallback when Telegram
// refuses a message's HTML, reads it as Telegram does.
func FuzzModelText(f *testing.F) {
	for _, s := range []string{
		"I'd start with **Fix login bug**, then `/tasks`.", "**a `b** c`", "***a**", "**`x`** `**y**`",
		"<b>&amp; &#39;</b> \"q\"", "**a\n**`b\n`", "\xff**\x00**`\xfe`", "````**``**``",
	} {
		f.Add(s)
	}
	unmarked := strings.NewReplacer("*", "", "`", "")
	f.Fuzz(func(t *testing.T, s string) {
		html := formatting.ModelText(s)
		plain, e := telegramtest.ParseHTML(html)
		if e != nil {
			t.Fatalf("ModelText(%q) = %q, which Telegram refuses: %s", s, html, e.Description)
		}
		if got, want := unmarked.Replace(plain), unmarked.Replace(strings.ToValidUTF8(s, "\uFFFD")); got != want {
			t.Errorf("ModelText(%q) reads %q, want %q and the marks", s, plain, want)
		}
		if got := formatting.PlainText(html); got != plain {
			t.Errorf("PlainText(%q) = %q, Telegram shows %q", html, got, plain)
		}
	})
}

// What a person reads of HTML decodes the entities Telegram does: the
// four named ones and every numeric one.
func TestPlainTextEntities(t *testing.T) {
	if got, want := formatting.PlainText("I&#39;d say <b>&quot;a&quot; &amp; &#x62;</b> &nbsp;"), `I'd say "a" & b &nbsp;`; got != want {
		t.Errorf("PlainText = %q, want %q", got, want)
	}
}
