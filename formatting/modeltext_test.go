package formatting_test

import (
	"testing"

	"github.com/nodbot/nod/formatting"
)

// A model's Markdown bold and code reach the person as bold and code, not
// as asterisks; everything else stays as written, and stays escaped.
func TestModelText(t *testing.T) {
	for in, want := range map[string]string{
		"I'd start with **Fix login bug**, then **Launch plan**.": "I'd start with <b>Fix login bug</b>, then <b>Launch plan</b>.",
		"Run `/tasks` to see them all.":                           "Run <code>/tasks</code> to see them all.",
		"**<script>** & `a<b`":                                    "<b>&lt;script&gt;</b> &amp; <code>a&lt;b</code>",
		"5 * 3 = 15, my_task_name, *maybe*":                       "5 * 3 = 15, my_task_name, *maybe*",
		"an unclosed **bold\nacross lines**":                      "an unclosed **bold\nacross lines**",
		"empty **** stays":                                        "empty **** stays",
	} {
		if got := formatting.ModelText(in); got != want {
			t.Errorf("ModelText(%q) = %q, want %q", in, got, want)
		}
		if got := formatting.ModelText(in); formatting.VisibleLen(got) > len([]rune(in)) {
			t.Errorf("ModelText(%q) shows more than was written: %q", in, got)
		}
	}
}

// What a person reads of HTML decodes the entities Telegram does: the
// four named ones and every numeric one.
func TestPlainTextEntities(t *testing.T) {
	if got, want := formatting.PlainText("I&#39;d say <b>&quot;a&quot; &amp; &#x62;</b> &nbsp;"), `I'd say "a" & b &nbsp;`; got != want {
		t.Errorf("PlainText = %q, want %q", got, want)
	}
}
