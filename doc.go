// Package nod holds the vocabulary of nod, a Telegram bot whose LLM agent
// manages a person's tasks and never changes their data behind their back.
//
// The package defines the domain types (tasks, change sets, decisions, audit
// and undo entries) and the few errors and values that cross packages. It
// imports only the standard library; each subpackage wraps one dependency:
// storage (SQL), agent (the LLM), bot (Telegram), formatting (messages).
package nod
