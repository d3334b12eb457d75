package bot_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/bot"
)

// A file of an export past the upload limit is cut off, never sent, and
// the person is told which and why; the other file still goes. The
// upload streams: the file is larger than what the client reads ahead.
func TestExportPastTheUploadLimit(t *testing.T) {
	t.Parallel()
	const limit = 2 << 20
	e := newEnvOpts(t, nil, func(o *bot.Options) { o.MaxUpload = limit })
	e.task("Fix login bug", nod.P3)
	// An audit log of 2.5 MB: the JSON holds it, the table of tasks not.
	big := strings.Repeat("x", 1000)
	var rows []nod.AuditEntry
	for i := range 2500 {
		args, _ := json.Marshal(map[string]string{"n": fmt.Sprint(i), "note": big})
		rows = append(rows, nod.AuditEntry{ChatID: chat, UserID: user, Tool: nod.ToolListTasks, Args: args, Outcome: nod.OutcomeExecuted})
	}
	if err := e.db.Audit().AddAudit(t.Context(), rows...); err != nil {
		t.Fatal(err)
	}
	e.tg.SendText(chat, user, "/export")
	docs := e.tg.WaitDocuments(chat, 1)
	if len(docs) != 1 || !strings.HasSuffix(docs[0].Name, ".csv") {
		t.Fatalf("sent %d files, first %q; want the table alone", len(docs), docs[0].Name)
	}
	var notice string
	e.tg.Wait("the notice", func() bool {
		for _, m := range e.tg.BotMessages(chat) {
			if m.Document == nil && strings.Contains(m.Text, "MB") {
				notice = m.Text
				return true
			}
		}
		return false
	})
	if !strings.Contains(notice, ".json") || !strings.Contains(notice, "larger than the 2 MB") {
		t.Errorf("the notice %q does not say which file was too large, and the limit", notice)
	}
	var row nod.AuditEntry
	e.tg.Wait("the export's audit row", func() bool {
		a, err := e.db.Audit().Audit(t.Context(), chat, 1)
		if err == nil && len(a) == 1 && a[0].Tool == nod.ToolExport {
			row = a[0]
			return true
		}
		return false
	})
	var args struct {
		Files []struct {
			Name  string `json:"name"`
			Bytes int64  `json:"bytes"`
			Sent  bool   `json:"sent"`
		} `json:"files"`
	}
	json.Unmarshal(row.Args, &args)
	if row.Outcome != nod.OutcomeFailed || row.Error != "too big" || len(args.Files) != 2 || args.Files[0].Sent || args.Files[0].Bytes > limit || !args.Files[1].Sent {
		t.Errorf("the export's audit row: %s %q %s", row.Outcome, row.Error, row.Args)
	}
}
