package sweep

import (
	"context"
	"log/slog"
	"time"

	"github.com/nodbot/nod"
)

// Options configure a Sweeper.
type Options struct {
	// ChangeSetTTL is how long a change set stays open (default
	// nod.DefaultChangeSetTTL): its warning comes a day before it ends,
	// or at 80 % of a shorter TTL.
	ChangeSetTTL time.Duration
	// TrashRetention is how long a trashed task is kept (default 30 days).
	TrashRetention time.Duration
	// UndoWindow is how long an Undo button works (default
	// nod.DefaultUndoWindow): a message's buttons are remembered at
	// least that long.
	UndoWindow time.Duration
	// AllowedUsers are the people nod serves: a reminder or daily review
	// set up by anyone else no longer goes out.
	AllowedUsers []nod.UserID
	// TimeZone serves chats that set no zone of their own (default UTC).
	TimeZone *time.Location
}

// Sweeper decides what happens on nod's own clock. Its methods are meant
// for one sweeping goroutine at a time.
type Sweeper struct {
	opts    Options
	d       Deps
	allowed map[nod.UserID]bool
	now     func() time.Time
	log     *slog.Logger

	pruned time.Time // when Tidy last pruned
}

// New returns a Sweeper; it does nothing until called.
func New(d Deps, opts Options, now func() time.Time, log *slog.Logger) *Sweeper {
	if opts.ChangeSetTTL <= 0 {
		opts.ChangeSetTTL = nod.DefaultChangeSetTTL
	}
	if opts.TrashRetention <= 0 {
		opts.TrashRetention = nod.DefaultTrashRetention
	}
	if opts.UndoWindow <= 0 {
		opts.UndoWindow = nod.DefaultUndoWindow
	}
	if opts.TimeZone == nil {
		opts.TimeZone = time.UTC
	}
	allowed := map[nod.UserID]bool{}
	for _, id := range opts.AllowedUsers {
		allowed[id] = true
	}
	return &Sweeper{opts: opts, d: d, allowed: allowed, now: now, log: log}
}

// Report is what one Run found for the bot to show.
type Report struct {
	// Expired and Warned are the sets that expired, or whose expiry came
	// near, at this run: each is reported by one replica, once.
	Expired, Warned []nod.ChangeSet
	// Deletions are one deletion per person whose line moves on: the bot
	// asks that person's next question.
	Deletions []nod.PendingDeletion
	// Forgets are the /forget requests whose time ran out, each reported
	// once: the bot edits their prompts.
	Forgets []nod.ForgetRequest
}

// Run expires the change sets whose time is up, warns of those whose
// time comes near, finds the lines of deletions that move on, and ends
// the /forget requests whose time is up. Safe
// on several replicas at once: each set is reported by one of them.
func (s *Sweeper) Run(ctx context.Context, now time.Time) Report {
	var r Report
	var err error
	r.Expired, err = s.d.Expiry.ExpireSets(ctx, now)
	if err != nil {
		s.failed(ctx, "expire change sets", err)
	}
	for _, set := range r.Expired {
		s.log.Info("change set expired", "chat", set.ChatID, "set", set.ID)
	}
	// A day before expiry, or at 80 % of a shorter TTL, the message says so.
	lead := min(24*time.Hour, s.opts.ChangeSetTTL/5)
	r.Warned, err = s.d.Expiry.WarnSets(ctx, now, func(set nod.ChangeSet) time.Time { return set.ExpiresAt.Add(-lead) })
	if err != nil {
		s.failed(ctx, "warn change sets", err)
	}
	r.Deletions, err = s.d.Deletions.DeletionsDue(ctx, now)
	if err != nil {
		s.failed(ctx, "deletions due", err)
	}
	if s.d.Forgets != nil {
		if r.Forgets, err = s.d.Forgets.ExpireForgets(ctx, now); err != nil {
			s.failed(ctx, "expire forget requests", err)
		}
	}
	return r
}

// Tidy purges the trash older than TrashRetention and, at most every
// pruneEvery, forgets old update ids and buttons. The bot calls it once
// it has shown what Run reported, so that a set's message is redrawn
// before the trash its tasks were in goes.
func (s *Sweeper) Tidy(ctx context.Context, now time.Time) {
	n, err := s.d.Trash.PurgeTrash(ctx, now.Add(-s.opts.TrashRetention))
	if err != nil {
		s.failed(ctx, "purge trash", err)
	} else if n > 0 {
		s.log.Info("trash purged", "tasks", n)
	}
	s.prune(ctx, now)
}

// failed logs a part of a sweep that failed; one cut short by a stop has
// not failed: the next start sweeps again.
func (s *Sweeper) failed(ctx context.Context, what string, err error) {
	if ctx.Err() == nil {
		s.log.Error(what, "err", err)
	}
}

// updateWindow is how long the id of a handled update is kept, so that a
// redelivery is known as one: Telegram keeps an update for at most 24
// hours, for getUpdates and webhook retries alike, and twice that leaves
// room for a process that was down and clocks that differ.
const updateWindow = 48 * time.Hour

// pruneEvery is how often, at most, the sweep forgets old update ids and
// buttons: each prune reads the whole of both tables.
const pruneEvery = time.Hour

// prune forgets update ids older than updateWindow and the buttons of
// messages not shown for longer than any of them can act (buttonWindow).
func (s *Sweeper) prune(ctx context.Context, now time.Time) {
	if now.Sub(s.pruned) < pruneEvery {
		return
	}
	s.pruned = now
	updates, err := s.d.Updates.PruneUpdates(ctx, now.Add(-updateWindow))
	if err != nil {
		s.failed(ctx, "prune updates", err)
	}
	buttons, err := s.d.Buttons.PruneButtons(ctx, now.Add(-s.buttonWindow()))
	if err != nil {
		s.failed(ctx, "prune buttons", err)
	}
	if updates+buttons > 0 {
		s.log.Info("old records pruned", "updates", updates, "buttons", buttons)
	}
}

// buttonWindow is how long a message's buttons are remembered after it
// was last sent or edited: the longest any of them acts on its own record
// (a set's TTL, which Keep renews by editing the message; the undo
// window; the trash's Restore; a learned rule's Stop). Buttons that act
// longer (a task card's, a reminder's) are refused as expired past it,
// on a message Telegram no longer shows the bot: the command that made
// them makes fresh ones.
func (s *Sweeper) buttonWindow() time.Duration {
	return max(s.opts.ChangeSetTTL, s.opts.UndoWindow, s.opts.TrashRetention, nod.RuleLifetime)
}
