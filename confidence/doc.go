// Package confidence decides, for the mutating tool calls of one agent
// step, whether the person explicitly asked for each (EXPLICIT) or whether
// it needs their confirmation (NEEDS_CONFIRMATION), by asking a classifier
// model.
//
// The classifier sees only the person's messages and the assistant's plain
// text, never tool calls, tool results, task contents or the system prompt,
// so text inside a task cannot talk it into EXPLICIT. Every failure — a
// timeout, an HTTP error, an unparsable answer, an unknown level, a quote the
// person never wrote — means NEEDS_CONFIRMATION.
package confidence
