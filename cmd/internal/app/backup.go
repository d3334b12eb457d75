package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/nodbot/nod/storage"
)

// backupCmd writes a consistent copy of the SQLite database to a new
// file, while nod runs or not: nod backup [-db DSN] FILE.
func backupCmd(ctx context.Context, args []string, getenv func(string) string, out, errw io.Writer) error {
	dsn, file, err := fileArgs("backup", args, getenv, errw)
	if err != nil {
		return err
	}
	if storage.IsPostgres(dsn) {
		return fmt.Errorf("nod backup copies SQLite only; back PostgreSQL up with pg_dump, which copies it consistently while nod runs: pg_dump --format=custom --file=%s --dbname=%s",
			shellQuote(file), shellQuote(redacted(dsn)))
	}
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("%s exists: nod backup never overwrites a file; name a new one", file)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	// The copy is written and checked under a temporary name in FILE's
	// folder, so that a half-written backup never has FILE's name.
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no folder %s to write the backup in", filepath.Dir(file))
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmpName := tmp.Name()
	tmp.Close() // VACUUM INTO writes into a file that is missing or empty
	placed := false
	defer func() {
		if !placed {
			os.Remove(tmpName)
		}
	}()
	if err := storage.Backup(ctx, dsn, tmpName); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no database %s to back up (-db, NOD_DB)", sqliteFile(dsn))
	} else if err != nil {
		return err
	}
	held, err := inspect(ctx, tmpName, getenv("NOD_AUDIT_KEY"), false)
	if err != nil {
		return fmt.Errorf("the copy of %s does not read back, so it was not kept: %w", sqliteFile(dsn), err)
	}
	if err := syncFile(tmpName); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := placeNew(tmpName, file); err != nil {
		return err
	}
	placed = true
	fmt.Fprintf(out, "wrote %s: %d tasks, audit head %s\n", file, held.tasks, held.head)
	return nil
}

// restoreCmd replaces the SQLite database with a backup, while no nod
// serves it: nod restore [-db DSN] FILE.
func restoreCmd(ctx context.Context, args []string, getenv func(string) string, out, errw io.Writer) error {
	dsn, file, err := fileArgs("restore", args, getenv, errw)
	if err != nil {
		return err
	}
	if storage.IsPostgres(dsn) {
		return fmt.Errorf("nod restore replaces SQLite only; restore PostgreSQL with pg_restore, nod stopped: pg_restore --clean --if-exists --single-transaction --dbname=%s %s",
			shellQuote(redacted(dsn)), shellQuote(file))
	}
	target := sqliteFile(dsn)
	lock, err := lockDB(target, true)
	if errors.Is(err, errLocked) {
		return fmt.Errorf("a running nod serves %s: stop it, then restore; nothing was changed", target)
	}
	if err != nil {
		return err
	}
	defer lock.Close()
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no backup %s; nothing was changed", file)
	}
	// What is checked is a copy beside the database, which then takes the
	// database's place: the backup itself is only read.
	tmp, err := copyBeside(file, target)
	if err != nil {
		return fmt.Errorf("restore: %w; nothing was changed", err)
	}
	placed := false
	defer func() {
		if !placed {
			os.Remove(tmp)
		}
	}()
	held, err := inspect(ctx, tmp, getenv("NOD_AUDIT_KEY"), true)
	if err != nil {
		return fmt.Errorf("%s cannot be restored: %w; nothing was changed", file, err)
	}
	kept, err := replace(target, tmp)
	if err != nil {
		return err
	}
	placed = true
	fmt.Fprintf(out, "restored %s from %s: %d tasks, audit head %s%s; %s\n", target, file, held.tasks, held.head, held.migrates(), kept)
	return nil
}

// fileArgs reads backup's and restore's flags and their one FILE, and
// returns the database (-db, NOD_DB or nod.db) and FILE.
func fileArgs(cmd string, args []string, getenv func(string) string, errw io.Writer) (dsn, file string, err error) {
	fs := flag.NewFlagSet("nod "+cmd, flag.ContinueOnError)
	fs.SetOutput(errw)
	db := fs.String("db", "", "SQLite file `path` or postgres:// URL (NOD_DB, default nod.db)")
	fs.Usage = func() {
		fmt.Fprintf(errw, "usage: %s\n", commandUsage[cmd])
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return "", "", err
	}
	if fs.NArg() != 1 {
		return "", "", fmt.Errorf("usage: %s", commandUsage[cmd])
	}
	dsn = *db
	if dsn == "" {
		dsn = getenv("NOD_DB")
	}
	if dsn == "" {
		dsn = "nod.db"
	}
	return dsn, fs.Arg(0), nil
}

var commandUsage = map[string]string{
	"backup":  "nod backup [-db DSN] FILE (writes a consistent copy of the SQLite database to the new FILE, while nod runs)",
	"restore": "nod restore [-db DSN] FILE (replaces the SQLite database with the backup FILE; stop nod first)",
}

// sqliteFile is the file a SQLite DSN names, without its parameters.
func sqliteFile(dsn string) string { return strings.SplitN(dsn, "?", 2)[0] }

// held is what a backup holds.
type held struct {
	tasks       int
	head        storage.AuditHead
	have, known int64 // its schema version, and the newest this nod knows
}

// migrates says that nod migrates the database at its next start, if it
// will.
func (h held) migrates() string {
	if h.have < h.known {
		return fmt.Sprintf(" (schema version %d: nod migrates it to %d when it starts)", h.have, h.known)
	}
	return ""
}

// inspect reads the SQLite file at path as it is, and returns what it
// holds if it is sound and of a schema this nod knows; with verify, its
// audit log's chains must also hold (as nod audit verify checks them).
func inspect(ctx context.Context, path, key string, verify bool) (held, error) {
	s, err := storage.OpenSnapshot(path, []byte(key))
	if err != nil {
		return held{}, err
	}
	defer s.Close()
	if err := s.Integrity(ctx); err != nil {
		return held{}, fmt.Errorf("it is not a sound SQLite database (%w)", err)
	}
	var h held
	if h.have, h.known, err = s.Schema(ctx); err != nil {
		return held{}, fmt.Errorf("it is not a nod database (%w)", err)
	}
	if h.have > h.known {
		return held{}, fmt.Errorf("a newer nod wrote it (schema version %d; this nod knows up to %d): upgrade nod first", h.have, h.known)
	}
	if h.tasks, err = s.Tasks(ctx); err != nil {
		return held{}, err
	}
	if verify {
		broken, _, err := s.Audit().VerifyAudit(ctx)
		if err != nil {
			return held{}, err
		}
		if broken != nil {
			return held{}, fmt.Errorf("its audit log does not verify: chat %d, audit row %d %s", broken.ChatID, broken.ID, broken.Why)
		}
	}
	if h.head, err = s.Audit().AuditHead(ctx); err != nil {
		return held{}, err
	}
	return h, nil
}

// placeNew gives the finished file tmp the name file, which must still
// be free: a link never replaces a file that appeared meanwhile, as a
// rename would.
func placeNew(tmp, file string) error {
	err := os.Link(tmp, file)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s appeared while the backup was written: nod backup never overwrites a file; name a new one", file)
	case err != nil:
		// A file system without hard links: rename, having looked.
		if _, serr := os.Lstat(file); serr == nil {
			return fmt.Errorf("%s appeared while the backup was written: nod backup never overwrites a file; name a new one", file)
		}
		if err := os.Rename(tmp, file); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	default:
		os.Remove(tmp)
	}
	return syncDir(filepath.Dir(file))
}

// copyBeside copies the file from into a new temporary file in the folder
// of the database file target, synced, and returns its name.
func copyBeside(from, target string) (string, error) {
	src, err := os.Open(from)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".restore-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst.Name())
		return "", err
	}
	return dst.Name(), nil
}

// sidecars are the files SQLite keeps beside a database. A -wal or a
// -journal holds writes that belong to its database, and would be played
// into any other database given that name; a -shm only indexes the -wal.
var sidecars = []string{"-wal", "-journal", "-shm"}

// replace puts the checked copy tmp in the place of the database target,
// keeping the database it replaces, with its -wal and -journal, under a
// name of its own; it returns what it kept, said for a person.
func replace(target, tmp string) (string, error) {
	kept := ""
	if _, err := os.Lstat(target); err == nil {
		if kept, err = freeName(target + ".before-restore"); err != nil {
			return "", err
		}
	}
	var moved [][2]string // from, to
	undo := func() {
		for i := len(moved) - 1; i >= 0; i-- {
			os.Rename(moved[i][1], moved[i][0])
		}
	}
	if kept != "" {
		if err := os.Rename(target, kept); err != nil {
			return "", fmt.Errorf("restore: keep %s: %w; nothing was changed", target, err)
		}
		moved = append(moved, [2]string{target, kept})
	}
	for _, side := range sidecars {
		from := target + side
		if _, err := os.Lstat(from); err != nil {
			continue
		}
		if side == "-shm" || kept == "" {
			// Without its -wal a -shm describes nothing; without its
			// database a -wal or -journal is of no use to anyone.
			if err := os.Remove(from); err != nil {
				undo()
				return "", fmt.Errorf("restore: remove %s: %w; nothing was changed", from, err)
			}
			continue
		}
		if err := os.Rename(from, kept+side); err != nil {
			undo()
			return "", fmt.Errorf("restore: keep %s: %w; nothing was changed", from, err)
		}
		moved = append(moved, [2]string{from, kept + side})
	}
	if err := os.Rename(tmp, target); err != nil {
		undo()
		return "", fmt.Errorf("restore: %w; nothing was changed", err)
	}
	if err := syncDir(filepath.Dir(target)); err != nil {
		return "", fmt.Errorf("restored, but the folder did not sync: %w", err)
	}
	switch len(moved) {
	case 0:
		return "there was no database before", nil
	case 1:
		return fmt.Sprintf("the database it replaced is kept as %s: to take the restore back, stop nod and rename it to %s", kept, target), nil
	}
	var names []string
	for _, m := range moved {
		names = append(names, filepath.Base(m[1])+" to "+filepath.Base(m[0]))
	}
	return fmt.Sprintf("the database it replaced is kept as %s: to take the restore back, stop nod and rename %s", kept, strings.Join(names, ", ")), nil
}

// freeName returns name, or name.2, name.3, … : the first not taken.
func freeName(name string) (string, error) {
	for i := 1; i < 1000; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s.%d", name, i)
		}
		if _, err := os.Lstat(n); errors.Is(err, fs.ErrNotExist) {
			return n, nil
		}
	}
	return "", fmt.Errorf("restore: %s and 998 more names are taken: remove old ones; nothing was changed", name)
}

func syncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// redacted is a database URL without its password.
func redacted(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// shellQuote quotes s for a POSIX shell where it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
