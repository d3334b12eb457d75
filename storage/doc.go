// Package storage keeps nod's data in SQLite (the embedded default) or
// PostgreSQL, with one SQL text. DB opens, migrates and closes the
// database and hands out one repository per aggregate (Tasks, ChangeSets,
// Deletions, Conversation, Outbox, Messages, Audit, Schedule, Settings,
// Rules, Undo), all on the connections, clock and transactions of one
// shared core.
//
// Where the dialects differ, the code says so at the spot: the migration
// folders (how an auto-increment id is declared), Open (driver and DSN),
// the connections (SQLite's one writer and prepared statements beside a
// read pool; PostgreSQL's pool, whose write transactions send their
// BEGIN and the writes nobody waits on with the next statement, pgtx.go),
// the chat lock (an advisory lock on PostgreSQL; SQLite's single writer
// already serialises), claims of due
// work (FOR UPDATE SKIP LOCKED on PostgreSQL), the outbox's takeover of a
// stopped process's entries (SQLite only: one process uses a file at a
// time), and task search (PostgreSQL's strpos and lower where SQLite uses
// nod_fold). Ids are generated in Go, timestamps are unix microseconds,
// booleans are integers, and every write that must happen together runs
// in one transaction.
//
// Files by what they do: changesets.go proposes, decides and loads change
// sets; apply.go writes a task's change with its undo entry and audit row;
// expiry.go expires, warns, keeps and re-proposes sets; reasons.go keeps
// the reasons given for rejections.
package storage
