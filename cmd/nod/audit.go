package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// auditExport writes the audit log as CSV to out, oldest first:
// nod audit export [-chat ID] [-since YYYY-MM-DD] [-db DSN].
func auditExport(ctx context.Context, args []string, getenv func(string) string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("nod audit export", flag.ContinueOnError)
	fs.SetOutput(errw)
	chat := fs.Int64("chat", 0, "only this chat (default: every chat)")
	since := fs.String("since", "", "only entries from this date on (YYYY-MM-DD)")
	dsn := fs.String("db", "", "SQLite file or postgres:// URL (env NOD_DB, default nod.db)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var from time.Time
	if *since != "" {
		var err error
		if from, err = time.Parse(nod.DateLayout, *since); err != nil {
			return fmt.Errorf("-since %q is not a YYYY-MM-DD date", *since)
		}
	}
	db, err := openForAudit(ctx, *dsn, getenv, errw)
	if err != nil {
		return err
	}
	defer db.Close()
	entries, err := db.AuditSince(ctx, *chat, from)
	if err != nil {
		return err
	}
	return writeAuditCSV(out, entries)
}

func writeAuditCSV(out io.Writer, entries []nod.AuditEntry) error {
	w := csv.NewWriter(out)
	w.Write([]string{"id", "time", "chat_id", "user_id", "tool", "outcome", "user_confirmed", "verdict", "reason", "error", "duration_ms", "arguments"})
	for _, a := range entries {
		w.Write([]string{
			strconv.FormatInt(a.ID, 10), a.At.UTC().Format(time.RFC3339Nano), strconv.FormatInt(a.ChatID, 10), strconv.FormatInt(a.UserID, 10),
			a.Tool, string(a.Outcome), strconv.FormatBool(a.UserConfirmed), a.Verdict, a.Reason, a.Error,
			strconv.FormatFloat(float64(a.Duration.Microseconds())/1000, 'f', 3, 64), string(a.Args),
		})
	}
	w.Flush()
	return w.Error()
}

var errUsage = errors.New("usage: nod audit export [-chat ID] [-since YYYY-MM-DD] [-db DSN] | nod audit verify [-db DSN]")

// errBroken makes `nod audit verify` exit 1 when a chain is broken.
var errBroken = errors.New("the audit log was changed")

// auditVerify checks every chat's audit hash chain and prints the first
// broken link.
func auditVerify(ctx context.Context, args []string, getenv func(string) string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("nod audit verify", flag.ContinueOnError)
	fs.SetOutput(errw)
	dsn := fs.String("db", "", "SQLite file or postgres:// URL (env NOD_DB, default nod.db)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, err := openForAudit(ctx, *dsn, getenv, errw)
	if err != nil {
		return err
	}
	defer db.Close()
	broken, checked, err := db.VerifyAudit(ctx)
	if err != nil {
		return err
	}
	if broken != nil {
		fmt.Fprintf(out, "broken: chat %d, audit row %d %s (%d rows checked)\n", broken.ChatID, broken.ID, broken.Why, checked)
		return errBroken
	}
	fmt.Fprintf(out, "ok: %d audit rows, every chain intact\n", checked)
	return nil
}

// openForAudit opens the database of -db, NOD_DB or nod.db.
func openForAudit(ctx context.Context, dsn string, getenv func(string) string, errw io.Writer) (*storage.DB, error) {
	if dsn == "" {
		dsn = getenv("NOD_DB")
	}
	if dsn == "" {
		dsn = "nod.db"
	}
	db := newDB(config{DB: dsn}, time.Now, slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err := db.Open(ctx); err != nil {
		return nil, err
	}
	return db, nil
}
