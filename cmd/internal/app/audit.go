package app

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// auditExport writes the audit log as CSV to out, oldest first:
// nod audit export [-chat ID] [-since YYYY-MM-DD] [-db DSN].
func auditExport(ctx context.Context, args []string, getenv func(string) string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("nod audit export", flag.ContinueOnError)
	fs.SetOutput(errw)
	chat := fs.Int64("chat", 0, "only this chat `id` (default: every chat)")
	since := fs.String("since", "", "only entries from this `date` on (YYYY-MM-DD)")
	dsn := fs.String("db", "", "SQLite file `path` or postgres:// URL (NOD_DB, default nod.db)")
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
	entries, err := db.Audit().AuditSince(ctx, nod.ChatID(*chat), from)
	if err != nil {
		return err
	}
	return writeAuditCSV(out, entries)
}

func writeAuditCSV(out io.Writer, entries []nod.AuditEntry) error {
	w := csv.NewWriter(out)
	// redacted: nod forgot the row's person; its user, verdict, reason,
	// error and arguments are gone (docs/design.md §6.1).
	w.Write([]string{"id", "time", "chat_id", "user_id", "tool", "outcome", "user_confirmed", "verdict", "reason", "error", "duration_ms", "arguments", "redacted"})
	for _, a := range entries {
		w.Write([]string{
			strconv.FormatInt(a.ID, 10), a.At.UTC().Format(time.RFC3339Nano), strconv.FormatInt(int64(a.ChatID), 10), strconv.FormatInt(int64(a.UserID), 10),
			string(a.Tool), string(a.Outcome), strconv.FormatBool(a.UserConfirmed), a.Verdict, a.Reason, a.Error,
			strconv.FormatFloat(float64(a.Duration.Microseconds())/1000, 'f', 3, 64), string(a.Args), strconv.FormatBool(a.Redacted),
		})
	}
	w.Flush()
	return w.Error()
}

var errUsage = errors.New("usage: nod audit export [-chat ID] [-since YYYY-MM-DD] [-db DSN] | nod audit verify [-db DSN] [-head HEAD] | nod audit head [-db DSN]")

// ErrBroken makes `nod audit verify` exit 1 when a chain is broken.
var ErrBroken = errors.New("the audit log was changed")

// auditVerify checks every chat's audit hash chain and prints the first
// broken link.
func auditVerify(ctx context.Context, args []string, getenv func(string) string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("nod audit verify", flag.ContinueOnError)
	fs.SetOutput(errw)
	dsn := fs.String("db", "", "SQLite file `path` or postgres:// URL (NOD_DB, default nod.db)")
	headArg := fs.String("head", "", "a `head` that nod audit head printed (or nod logged) earlier: also check nothing up to it was removed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var head *storage.AuditHead
	if *headArg != "" {
		h, err := storage.ParseAuditHead(*headArg)
		if err != nil {
			return err
		}
		head = &h
	}
	db, err := openForAudit(ctx, *dsn, getenv, errw)
	if err != nil {
		return err
	}
	defer db.Close()
	broken, checked, err := db.Audit().VerifyAudit(ctx)
	if err != nil {
		return err
	}
	if broken != nil {
		fmt.Fprintf(out, "broken: chat %d, audit row %d %s (%d rows checked)\n", broken.ChatID, broken.ID, broken.Why, checked)
		return ErrBroken
	}
	if head != nil {
		why, err := db.Audit().VerifyHead(ctx, *head)
		if err != nil {
			return err
		}
		if why != "" {
			fmt.Fprintf(out, "broken: %s (%d rows checked)\n", why, checked)
			return ErrBroken
		}
		fmt.Fprintf(out, "ok: %d audit rows, every chain intact, and all %d rows up to the head's row %d still there\n", checked, head.Rows, head.MaxID)
		return nil
	}
	// A chain cannot show rows cut from its end: say so, so that "ok" does
	// not reassure about what this check could not see.
	fmt.Fprintf(out, "ok: %d audit rows, every chain intact; rows cut from the end of the log cannot be found without -head (from nod audit head, or the head nod logs)\n", checked)
	return nil
}

// auditHead prints the audit log's head: kept outside the database, it
// lets a later verify -head find rows removed from the log's end.
func auditHead(ctx context.Context, args []string, getenv func(string) string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("nod audit head", flag.ContinueOnError)
	fs.SetOutput(errw)
	dsn := fs.String("db", "", "SQLite file `path` or postgres:// URL (NOD_DB, default nod.db)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, err := openForAudit(ctx, *dsn, getenv, errw)
	if err != nil {
		return err
	}
	defer db.Close()
	h, err := db.Audit().AuditHead(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, h)
	return nil
}

// anchorEvery is how often a running nod logs the audit head.
const anchorEvery = 15 * time.Minute

// anchor logs the audit head at start, every so often and at stop, so
// that the operator's logs keep heads that nobody with only database
// access can change.
type anchor struct {
	db    *storage.DB
	log   *slog.Logger
	every time.Duration
	quit  chan struct{}
	done  chan struct{}
}

func newAnchor(db *storage.DB, log *slog.Logger, every time.Duration) *anchor {
	return &anchor{db: db, log: log, every: every, quit: make(chan struct{}), done: make(chan struct{})}
}

func (a *anchor) start(context.Context) error {
	go a.loop()
	return nil
}

func (a *anchor) loop() {
	defer close(a.done)
	t := time.NewTicker(a.every)
	defer t.Stop()
	for {
		a.logHead()
		select {
		case <-a.quit:
			return
		case <-t.C:
		}
	}
}

// logHead logs the head; a panic or a failure is logged, never fatal.
func (a *anchor) logHead() {
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("audit head panic", "panic", fmt.Sprint(r))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := a.db.Audit().AuditHead(ctx)
	if err != nil {
		a.log.Warn("audit head", "err", err)
		return
	}
	a.log.Info("audit head", "head", h.String())
}

func (a *anchor) stop(context.Context) error {
	close(a.quit)
	<-a.done
	a.logHead()
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
	if !storage.IsPostgres(dsn) {
		// Opening a SQLite file that is not there would create an empty one
		// and report its empty log as intact.
		if _, err := os.Stat(strings.SplitN(dsn, "?", 2)[0]); err != nil {
			return nil, fmt.Errorf("database %s: %w", dsn, err)
		}
	}
	db := newDB(config{DB: dsn, AuditKey: getenv("NOD_AUDIT_KEY")}, time.Now, slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err := db.Open(ctx); err != nil {
		return nil, err
	}
	return db, nil
}
