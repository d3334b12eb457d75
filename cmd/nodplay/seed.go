package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// prepare returns the last update nod handled in the database at dsn, so
// that the stand-in numbers on from it (nod would skip lower ids after a
// restart); with seed, it gives an empty database a few example tasks, as
// the person's own, in their language.
func prepare(ctx context.Context, dsn string, chat int64, seed bool, lang string, log *slog.Logger) (int64, error) {
	db := storage.New(storage.Options{DSN: dsn}, time.Now, log)
	if err := db.Open(ctx); err != nil {
		return 0, err
	}
	defer db.Close()
	last, err := db.Outbox().LastUpdateID(ctx)
	if err != nil || !seed {
		return last, err
	}
	return last, seedTasks(ctx, db, chat, lang)
}

// examples are the example tasks in each language the playground offers;
// a German player starting with English tasks would read them back in two
// languages.
var examples = map[string][]nod.Task{
	"en": {
		{Title: "Fix login bug", Description: "Safari users are logged out after a minute.", Priority: nod.P3, Labels: []string{"bug"}},
		{Title: "Launch plan", Description: "Everything for the launch of version 2."},
		{Title: "Write release notes", Description: "What changed in version 2, for the blog."},
	},
	"de": {
		{Title: "Login-Fehler beheben", Description: "Safari-Nutzer werden nach einer Minute abgemeldet.", Priority: nod.P3, Labels: []string{"bug"}},
		{Title: "Launch-Plan", Description: "Alles für den Start von Version 2."},
		{Title: "Release Notes schreiben", Description: "Was sich in Version 2 geändert hat, für den Blog."},
	},
}

// seedTasks gives an empty chat a few example tasks in lang (English if
// there are none in it).
func seedTasks(ctx context.Context, db *storage.DB, chat int64, lang string) error {
	have, err := db.Tasks().ListTasks(ctx, nod.ChatID(chat), nod.TaskFilter{})
	if err != nil || len(have) > 0 {
		return err
	}
	base, _, _ := strings.Cut(strings.ToLower(lang), "-")
	tasks, ok := examples[base]
	if !ok {
		tasks = examples["en"]
	}
	for _, t := range tasks {
		t.ID, t.Status = nod.TaskID(nod.NewID()), nod.StatusOpen
		if t.Priority == "" {
			t.Priority = nod.P2
		}
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(chat)}, UserID: nod.UserID(player), Tool: nod.ToolCreateTask, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
			Mutate: func(*nod.Task) (nod.Task, error) { return t, nil }}); err != nil {
			return fmt.Errorf("seed %q: %w", t.Title, err)
		}
	}
	return nil
}
