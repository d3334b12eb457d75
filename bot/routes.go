package bot

import (
	"context"

	"github.com/nodbot/nod"
)

// command is a slash command: what setMyCommands lists (described by the
// template cmd_<name> of each language), and what it runs in the chat's
// queue.
type command struct {
	name string
	run  func(b *Bot, ctx context.Context, in incoming)
}

// commands lists every command in the order people see them.
var commands = []command{
	{"start", (*Bot).cmdStart},
	{"help", (*Bot).cmdHelp},
	{"tasks", (*Bot).cmdTasks},
	{"pending", (*Bot).cmdPending},
	{"review", (*Bot).cmdReview},
	{"trash", (*Bot).cmdTrash},
	{"undo", (*Bot).cmdUndo},
	{"mode", (*Bot).cmdMode},
	{"audit", (*Bot).cmdAudit},
	{"rules", (*Bot).cmdRules},
	{"lang", (*Bot).cmdLang},
	{"tz", (*Bot).cmdTz},
	{"daily", (*Bot).cmdDaily},
}

// actions maps every button kind to its handler; a handler returns the
// text of the callback answer.
var actions = map[nod.ActionKind]func(b *Bot, ctx context.Context, p press) string{
	nod.ActConfirm:       (*Bot).onConfirm,
	nod.ActReject:        (*Bot).onReject,
	nod.ActConfirmAll:    (*Bot).onConfirmAll,
	nod.ActRejectAll:     (*Bot).onRejectAll,
	nod.ActUndo:          (*Bot).onUndo,
	nod.ActOpenTask:      (*Bot).onOpenTask,
	nod.ActToggle:        (*Bot).onToggle,
	nod.ActSetMode:       (*Bot).onSetMode,
	nod.ActRestore:       (*Bot).onRestore,
	nod.ActApplyAnyway:   (*Bot).onApplyAnyway,
	nod.ActSkip:          (*Bot).onSkip,
	nod.ActRetry:         (*Bot).onRetry,
	nod.ActSkipRest:      (*Bot).onSkipRest,
	nod.ActAbort:         (*Bot).onAbort,
	nod.ActUndoForce:     (*Bot).onUndoForce,
	nod.ActAcceptReading: (*Bot).onAcceptReading,
	nod.ActTaskPage:      (*Bot).onTaskPage,
	nod.ActRepropose:     (*Bot).onRepropose,
	nod.ActKeep:          (*Bot).onKeep,
	nod.ActAcceptRule:    (*Bot).onAcceptRule,
	nod.ActDeclineRule:   (*Bot).onDeclineRule,
	nod.ActRevokeRule:    (*Bot).onRevokeRule,
	nod.ActStopRule:      (*Bot).onStopRule,
	nod.ActUndoZone:      (*Bot).onUndoZone,
	nod.ActRemindDone:    (*Bot).onRemindDone,
	nod.ActSnooze:        (*Bot).onSnooze,
	nod.ActZoneAccept:    (*Bot).onZoneAccept,
	nod.ActZoneDecline:   (*Bot).onZoneDecline,
}
