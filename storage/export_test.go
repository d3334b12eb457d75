package storage

import (
	"context"
	"fmt"
)

// MigrateDownTo takes the schema back to version v, running the Down
// parts of every later migration: tests of a migration start from the
// shape before it, whatever migrations came after.
func (db *DB) MigrateDownTo(ctx context.Context, v int64) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	return db.withPool(ctx, func() error {
		if _, err := p.DownTo(ctx, v); err != nil {
			return fmt.Errorf("migrate down to %d: %w", v, err)
		}
		return nil
	})
}
