// Package bot is nod's Telegram adapter on github.com/go-telegram/bot:
// updates in, messages and inline keyboards out. It decides nothing about
// the person's data: it decodes an update, asks a service (the agent, the
// confirmation service, the sweep) through the interfaces of store.go, and
// renders what comes back with formatting.
//
// The library runs every update in its own goroutine, advances the polling
// offset before a handler runs, recovers no panics and never retries. So
// the bot takes updates one at a time in update order and keeps each chat's
// text messages in that order on a queue of their own,
// runs button presses on their own path (never queued behind the turn that
// waits for them), records every handled update id and ignores redelivered
// ones, recovers panics with an apology, and answers every callback query.
package bot
