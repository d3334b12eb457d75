package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// prepare returns the last update nod handled in the database at dsn, so
// that the stand-in numbers on from it (nod would skip lower ids after a
// restart); with seed, it gives an empty database a few example tasks, as
// the person's own.
func prepare(ctx context.Context, dsn string, chat int64, seed bool, log *slog.Logger) (int64, error) {
	db := storage.New(storage.Options{DSN: dsn}, time.Now, log)
	if err := db.Open(ctx); err != nil {
		return 0, err
	}
	defer db.Close()
	last, err := db.Outbox().LastUpdateID(ctx)
	if err != nil || !seed {
		return last, err
	}
	return last, seedTasks(ctx, db, chat)
}

// seedTasks gives an empty chat a few example tasks.
func seedTasks(ctx context.Context, db *storage.DB, chat int64) error {
	have, err := db.Tasks().ListTasks(ctx, nod.ChatID(chat), nod.TaskFilter{})
	if err != nil || len(have) > 0 {
		return err
	}
	for _, t := range []nod.Task{
		{Title: "Fix login bug", Description: "Safari users are logged out after a minute.", Priority: nod.P3, Labels: []string{"bug"}},
		{Title: "Launch plan", Description: "Everything for the launch of version 2."},
		{Title: "Write release notes", Description: "What changed in version 2, for the blog."},
	} {
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
