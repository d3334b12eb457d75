package bot

import (
	"context"

	"github.com/nodbot/nod"
)

// command is a slash command: what /help and setMyCommands list, and what
// it runs in the chat's queue.
type command struct {
	name string
	help string
	run  func(b *Bot, ctx context.Context, in incoming)
}

// commands lists every command in the order people see them.
var commands = []command{
	{"start", "What nod is", (*Bot).cmdStart},
	{"help", "What nod can do", (*Bot).cmdHelp},
	{"tasks", "Your tasks", (*Bot).cmdTasks},
	{"pending", "Changes waiting for you", (*Bot).cmdPending},
	{"review", "Let nod look over your tasks and suggest changes", (*Bot).cmdReview},
	{"trash", "Deleted tasks, to restore", (*Bot).cmdTrash},
	{"undo", "Undo the latest change", (*Bot).cmdUndo},
	{"mode", "How much to ask: smart, always, trusted", (*Bot).cmdMode},
	{"audit", "What nod did, latest first", (*Bot).cmdAudit},
	{"rules", "Changes nod may make without asking", (*Bot).cmdRules},
}

// actions maps every button kind to its handler; a handler returns the
// text of the callback answer.
var actions = map[nod.ActionKind]func(b *Bot, ctx context.Context, p press) string{
	nod.ActConfirm:     (*Bot).onConfirm,
	nod.ActReject:      (*Bot).onReject,
	nod.ActConfirmAll:  (*Bot).onConfirmAll,
	nod.ActRejectAll:   (*Bot).onRejectAll,
	nod.ActUndo:        (*Bot).onUndo,
	nod.ActOpenTask:    (*Bot).onOpenTask,
	nod.ActToggle:      (*Bot).onToggle,
	nod.ActSetMode:     (*Bot).onSetMode,
	nod.ActRestore:     (*Bot).onRestore,
	nod.ActApplyAnyway: (*Bot).onApplyAnyway,
	nod.ActSkip:        (*Bot).onSkip,
	nod.ActRetry:       (*Bot).onRetry,
	nod.ActSkipRest:    (*Bot).onSkipRest,
	nod.ActAbort:       (*Bot).onAbort,
	nod.ActUndoForce:   (*Bot).onUndoForce,
	nod.ActRepropose:   (*Bot).onRepropose,
	nod.ActKeep:        (*Bot).onKeep,
	nod.ActAcceptRule:  (*Bot).onAcceptRule,
	nod.ActDeclineRule: (*Bot).onDeclineRule,
	nod.ActRevokeRule:  (*Bot).onRevokeRule,
}
