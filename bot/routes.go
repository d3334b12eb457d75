package bot

import (
	"context"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// command is a slash command: what setMyCommands lists, with its about
// in each language, and what it runs in the chat's queue.
type command struct {
	name  string
	about formatting.Fixed
	run   func(b *Bot, ctx context.Context, in incoming)
}

// commands lists every command in the order people see them.
var commands = []command{
	{"start", formatting.CmdStart, (*Bot).cmdStart},
	{"help", formatting.CmdHelp, (*Bot).cmdHelp},
	{"tasks", formatting.CmdTasks, (*Bot).cmdTasks},
	{"today", formatting.CmdToday, (*Bot).cmdToday},
	{"pending", formatting.CmdPending, (*Bot).cmdPending},
	{"review", formatting.CmdReview, (*Bot).cmdReview},
	{"trash", formatting.CmdTrash, (*Bot).cmdTrash},
	{"undo", formatting.CmdUndo, (*Bot).cmdUndo},
	{"mode", formatting.CmdMode, (*Bot).cmdMode},
	{"audit", formatting.CmdAudit, (*Bot).cmdAudit},
	{"rules", formatting.CmdRules, (*Bot).cmdRules},
	{"lang", formatting.CmdLang, (*Bot).cmdLang},
	{"tz", formatting.CmdTz, (*Bot).cmdTz},
	{"daily", formatting.CmdDaily, (*Bot).cmdDaily},
	{"export", formatting.CmdExport, (*Bot).cmdExport},
	{"forget", formatting.CmdForget, (*Bot).cmdForget},
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
	nod.ActZoneCity:      (*Bot).onZoneCity,
	nod.ActZoneDecline:   (*Bot).onZoneDecline,
	nod.ActUndoAll:       (*Bot).onUndoAll,
	nod.ActUndoPick:      (*Bot).onUndoPick,
	nod.ActCardDone:      (*Bot).onCardDone,
	nod.ActCardHour:      (*Bot).onCardSnooze,
	nod.ActCardTomorrow:  (*Bot).onCardSnooze,
	nod.ActCardReopen:    (*Bot).onCardReopen,
	nod.ActKeepDeletion:  (*Bot).onKeepDeletion,
	nod.ActUndoLeave:     (*Bot).onUndoLeave,
}
