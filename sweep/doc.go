// Package sweep is what nod does on its own clock: it expires change
// sets and warns of their expiry, moves lines of deletions on, purges the
// trash, prunes old records, claims due reminders and daily reviews once
// across replicas, and takes what the outbox owes.
//
// It decides what happened and reports it; the bot renders and sends
// what it reports. Errors are logged here, since a sweep that fails in
// part runs again at the next tick.
package sweep
