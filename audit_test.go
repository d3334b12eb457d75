package nod_test

import (
	"slices"
	"testing"

	"github.com/nodbot/nod"
)

func TestAuditEntryArg(t *testing.T) {
	a := nod.AuditEntry{Args: []byte(`{"title":"Buy \"milk\"","estimate_minutes":15,"due_date":null,"isChecked":true,"labels":["home","x"]}`)}
	for name, want := range map[string]string{"title": `Buy "milk"`, "estimate_minutes": "15", "due_date": "", "isChecked": "true", "absent": ""} {
		if got := a.Arg(name); got != want {
			t.Errorf("Arg(%q) = %q, want %q", name, got, want)
		}
	}
	if got := a.ArgList("labels"); !slices.Equal(got, []string{"home", "x"}) {
		t.Errorf("ArgList(labels) = %q", got)
	}
	if got := (nod.AuditEntry{Args: []byte(`not json`)}).Arg("title"); got != "" {
		t.Errorf("Arg of unreadable arguments = %q, want empty", got)
	}
}
