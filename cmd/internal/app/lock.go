package app

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/nodbot/nod/storage"
)

// A running nod holds a lock on its SQLite database that nod restore
// tests: flock(2) on a file beside the database, its name and ".lock".
// nod serve (and nod migrate) hold it shared, so several may run on one
// file; nod restore takes it exclusive without waiting, so it fails while
// any nod runs on the file, and a nod starting during a restore fails to
// start. The kernel drops the lock with its process, however that ends.
//
// Not a lock on the database file itself: SQLite locks that file with
// POSIX fcntl locks, which a process loses on closing any descriptor of
// the file, so nothing in nod opens it beside SQLite; and a restore moves
// a new file into the database's place, which a lock on the old file
// would not cover, while the lock file stays. flock, not fcntl: an flock
// belongs to the open file, so that two opens conflict within one process
// too (the end-to-end tests run nod and restore in one process), and it
// is independent of SQLite's own fcntl locks on Linux.
var errLocked = errors.New("the database is locked")

// lockDB takes the lock of the SQLite database file path, shared or
// exclusive, without waiting: errLocked if it is held otherwise. Closing
// the file releases it.
func lockDB(path string, exclusive bool) (*os.File, error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := flock(f, exclusive); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// dbLock is the lock a serving nod holds for its whole run; none on
// PostgreSQL.
type dbLock struct {
	dsn string
	f   *os.File
}

func (l *dbLock) hold(context.Context) error {
	if storage.IsPostgres(l.dsn) {
		return nil
	}
	f, err := lockDB(sqliteFile(l.dsn), false)
	if errors.Is(err, errLocked) {
		return fmt.Errorf("nod restore is replacing %s: start nod again once it is done", sqliteFile(l.dsn))
	}
	l.f = f
	return err
}

func (l *dbLock) release(context.Context) error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
