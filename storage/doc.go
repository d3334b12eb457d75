// Package storage keeps nod's data in SQLite (the embedded default) or
// PostgreSQL, behind one set of repositories with one SQL text.
//
// Dialect differences live in two places only: the migration folders (how an
// auto-increment id is declared) and Open (driver and DSN). Ids are generated
// in Go, timestamps are unix microseconds, booleans are integers, and every
// write that must happen together runs in one transaction.
package storage
