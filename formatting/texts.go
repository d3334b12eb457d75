package formatting

import (
	"time"

	"github.com/nodbot/nod"
)

// The templates the bot renders with Text, Notice or Render, each with
// the type of its data. An int where a turn stopped counts the changes
// it had applied before.
var (
	Start          = fixed("start")
	Help           = fixed("help")
	Refusal        = define[nod.UserID]("refusal")
	ModelError     = define[int]("model_error")
	InternalError  = define[int]("internal_error")
	TurnTimeout    = define[int]("turn_timeout")
	AnswerLate     = define[string]("answer_late") // the message left unanswered
	ReceiptsLate   = fixed("receipts_late")
	StepsExhausted = define[int]("steps_exhausted")
	EmptyReply     = fixed("empty_reply")
	Panic          = fixed("panic")
	TooLong        = define[int]("too_long") // characters
	NotText        = fixed("not_text")
	NoCaption      = fixed("no_caption")
	Unreadable     = fixed("unreadable")
	ForwardedAsks  = fixed("forwarded_asks")
	NoteMessage    = define[string]("notice") // a note, as Remark renders it
	LangSet        = fixed("lang_set")
	LangShow       = define[[]string]("lang_show") // the languages nod speaks

	Heard       = define[string]("heard")
	VoiceTooBig = fixed("voice_too_big")
	VoiceFailed = fixed("voice_failed")
	VoiceEmpty  = fixed("voice_empty")

	ModeSet = define[nod.Mode]("mode_set")

	PendingNone   = fixed("pending_none")
	PendingItem   = define[PendingCount]("pending_item")
	Answered      = define[Tally]("answered")
	AnswerUnknown = define[NoSuchItem]("answer_unknown")
	NothingLeft   = fixed("nothing_left")
	ReasonNoted   = define[string]("reason_noted")
	ReasonTooLong = define[Overlong]("reason_too_long")

	// Deleting takes the task's title.
	DeleteAgain           = define[string]("delete_again")
	DeleteCancelled       = define[string]("delete_cancelled")
	DeleteYesCancelled    = define[string]("delete_yes_cancelled")
	DeleteLineCancelled   = define[KeptLine]("delete_line_cancelled")
	DeleteKept            = define[KeptLine]("delete_kept")
	Deleted               = define[Trashed]("deleted")
	DeletePromptCancelled = define[string]("delete_prompt_cancelled")
	DeletePromptExpired   = define[string]("delete_prompt_expired")
	DeletePromptDone      = define[string]("delete_prompt_done")
	DeletePromptFailed    = define[string]("delete_prompt_failed")
	Restored              = define[RestoredTask]("restored")

	// Forgetting a person takes a typed phrase, in a private chat.
	ForgetAsk             = define[ForgetScope]("forget_ask")
	ForgetGroup           = fixed("forget_group")
	Forgotten             = define[nod.PersonData]("forgotten")
	ForgetCancelled       = fixed("forget_cancelled")
	ForgetPromptDone      = fixed("forget_prompt_done")
	ForgetPromptCancelled = fixed("forget_prompt_cancelled")
	ForgetPromptExpired   = fixed("forget_prompt_expired")

	NothingToUndo  = fixed("nothing_to_undo")
	UndoneAlready  = define[string]("undone_already") // the task's title, "" if none
	AlreadyToggled = define[*nod.ChecklistItem]("already_toggled")
	Toggled        = define[*nod.ChecklistItem]("toggled")

	TzBad        = define[string]("tz_bad") // what the person typed
	TzSea        = fixed("tz_sea")
	TzKept       = fixed("tz_kept")
	AdminOnly    = define[string]("admin_only") // the command: "tz", "daily" or "lang"
	DailyOff     = fixed("daily_off")
	DailyBad     = fixed("daily_bad")
	DailyNothing = fixed("daily_nothing")
	DailySaid    = define[string]("daily_said") // the agent's line, plain text
	// DailyProposed heads a daily review whose proposals follow when the
	// agent wrote no line of its own.
	DailyProposed = fixed("daily_proposed")
)

// The descriptions of the commands, as Telegram's menu lists them.
var (
	CmdStart   = fixed("cmd_start")
	CmdHelp    = fixed("cmd_help")
	CmdTasks   = fixed("cmd_tasks")
	CmdToday   = fixed("cmd_today")
	CmdPending = fixed("cmd_pending")
	CmdReview  = fixed("cmd_review")
	CmdTrash   = fixed("cmd_trash")
	CmdUndo    = fixed("cmd_undo")
	CmdMode    = fixed("cmd_mode")
	CmdAudit   = fixed("cmd_audit")
	CmdRules   = fixed("cmd_rules")
	CmdLang    = fixed("cmd_lang")
	CmdTz      = fixed("cmd_tz")
	CmdDaily   = fixed("cmd_daily")
	CmdExport  = fixed("cmd_export")
	CmdForget  = fixed("cmd_forget")
)

// The messages of /export. A string is the person's name in a group,
// "" in a private chat or when nod never learned it.
var (
	ExportCaption      = define[ExportFiles]("export_caption")
	ExportTableCaption = fixed("export_table_caption")
	ExportSent         = define[string]("export_sent")
	ExportStartPrivate = define[string]("export_start_private")
	ExportTooBig       = define[ExportTrouble]("export_too_big")
	ExportFailed       = define[ExportTrouble]("export_failed")
)

// The words of an answer to a change set, for AnswerWords.
var (
	wordsYes    = fixed("words_yes")
	wordsNo     = fixed("words_no")
	wordsNot    = fixed("words_not")
	wordsTo     = fixed("words_to")
	wordsAnd    = fixed("words_and")
	wordsRange  = fixed("words_range")
	wordsAll    = fixed("words_all")
	wordsExcept = fixed("words_except")
	wordsBut    = fixed("words_but")
	wordsToo    = fixed("words_too")
	wordsRefuse = fixed("words_refuse")
)

// The notices, short answers to a button press, for Notice. An int is
// an item's number, or a count of items.
var (
	NoticeForbidden         = fixed("n_forbidden")
	NoticeExpired           = fixed("n_expired")
	NoticeDecided           = fixed("n_decided")
	NoticeItemDecided       = define[DecidedItem]("n_item_decided")
	NoticeStaleUndo         = fixed("n_stale_undo")
	NoticeTwin              = fixed("n_twin")
	NoticeUndoForbidden     = fixed("n_undo_forbidden")
	NoticeInTrash           = fixed("n_in_trash")
	NoticeTrashed           = fixed("n_trashed")
	NoticeNotHere           = fixed("n_not_here")
	NoticeButtonExpired     = fixed("n_button_expired")
	NoticeInvalid           = fixed("n_invalid")
	NoticeUnreadable        = fixed("n_unreadable")
	NoticeFailed            = fixed("n_failed")
	NoticeStranger          = define[nod.UserID]("n_stranger")
	NoticeAppliedItem       = define[int]("n_applied_item")
	NoticeRejectedItem      = define[int]("n_rejected_item")
	NoticeSkippedItem       = define[int]("n_skipped_item")
	NoticeAppliedCount      = define[int]("n_applied_count")
	NoticeRejectedAll       = fixed("n_rejected_all")
	NoticeNothingLeft       = fixed("n_nothing_left")
	NoticeStoppedAt         = define[int]("n_stopped_at")
	NoticeNotApplied        = define[string]("n_not_applied") // a note, as Remark renders it
	NoticeAborted           = fixed("n_aborted")
	NoticeUndoLate          = fixed("n_undo_late")
	NoticeRedone            = fixed("n_redone")
	NoticeUndone            = fixed("n_undone")
	NoticeUndoLeft          = fixed("n_undo_left")
	NoticeBulkUndone        = fixed("n_bulk_undone") // every change of a short receipt
	NoticeRestored          = fixed("n_restored")
	NoticeMode              = define[nod.Mode]("n_mode")
	NoticeKept              = define[string]("n_kept") // until this YYYY-MM-DD
	NoticeReproposedAlready = fixed("n_reproposed_already")
	NoticeReproposeNone     = fixed("n_repropose_none")
	NoticeReproposed        = define[Reproposal]("n_reproposed")
	NoticeRuleOn            = define[string]("n_rule_on") // until this date, as Rules.Until writes it
	NoticeRuleDeclined      = fixed("n_rule_declined")
	NoticeRuleRevoked       = fixed("n_rule_revoked")
	NoticeRuleDecided       = fixed("n_rule_decided")
	NoticeZoneStale         = fixed("n_zone_stale")
	NoticeRemindGone        = fixed("n_remind_gone")
	NoticeRemindClosed      = fixed("n_remind_closed")
	NoticeRemindSent        = fixed("n_remind_sent")
	NoticeRemindForbidden   = fixed("n_remind_forbidden")
	NoticeRemindWhose       = define[string]("n_remind_whose") // the name of whose it is
	NoticeCardStale         = fixed("n_card_stale")
	NoticeTaskWhose         = define[string]("n_task_whose") // the name of whose it is
	NoticeTaskForbidden     = fixed("n_task_forbidden")
)

func init() {
	partial[int]("applied_above")
	partial[nod.ItemStatus]("item_status")
}

// PendingCount is how many of a change set's Total items are Pending, and
// in a group whom they wait for: Other marks another member's set (For
// names them, if nod knows their name), Anyone a review's, which any
// member may decide.
type PendingCount struct {
	Pending, Total int
	For            string
	Other, Anyone  bool
}

// Tally is what an answer to a change set did, and how many items still
// wait.
type Tally struct{ Applied, Rejected, Pending int }

// NoSuchItem is an answer's item N that a set of Total items lacks.
type NoSuchItem struct{ N, Total int }

// Overlong is a text of Len characters, more than the Max allowed.
type Overlong struct{ Len, Max int }

// RestoredTask is a task back from the trash, with its Checklist items.
type RestoredTask struct {
	Title     string
	Checklist int
}

// DecidedItem is item N, decided already: Status says how.
type DecidedItem struct {
	N      int
	Status nod.ItemStatus
}

// ForgetScope is what /forget would delete, and how many minutes it
// waits for its phrase.
type ForgetScope struct {
	nod.PersonData
	Wait *int
}

// Reproposal is a re-proposed set: Count items proposed again, Dropped
// no longer made sense.
type Reproposal struct{ Count, Dropped int }

// KeptLine is a cancelled deletion and the rest of its line, cancelled
// with it: Rest holds their titles, in line order.
type KeptLine struct {
	Title string
	Rest  []string
}

// Named reports whether the rest is few enough to name.
func (k KeptLine) Named() bool { return len(k.Rest) <= 3 }

// Last reports whether i is the last of the rest.
func (k KeptLine) Last(i int) bool { return i == len(k.Rest)-1 }

// Trashed is a task moved to the trash, and how long the trash keeps it.
type Trashed struct {
	Title string
	Keep  time.Duration
}
