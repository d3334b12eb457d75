// Package confirm holds the person's own changes: decisions on change
// sets, undo and redo, taps on task cards and reminders, deletions and
// restores, and the offers of rules learned from their confirmations.
//
// It decides nothing on the model's behalf: the agent reaches it through
// agent.Answerer (answer_proposals), the bot through interfaces of its
// own, and every method authorizes the person against the record it names
// before anything is written.
package confirm
