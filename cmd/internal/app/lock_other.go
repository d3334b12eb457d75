//go:build !unix

package app

import (
	"errors"
	"os"
)

// flock has no flock(2) to call: nod serves unlocked, and a restore,
// unable to tell whether nod serves the database, refuses.
func flock(_ *os.File, exclusive bool) error {
	if exclusive {
		return errors.New("nod restore needs flock(2) to tell whether nod serves the database, and this system has none: stop nod, then copy the backup over the database")
	}
	return nil
}
