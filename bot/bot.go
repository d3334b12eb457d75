package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/transport"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure the bot.
type Options struct {
	Token        string
	APIURL       string // Bot API base URL, no trailing slash
	AllowedUsers []nod.UserID
	// PollTimeout is the long-poll duration of getUpdates.
	PollTimeout time.Duration
	// HTTPClient talks to the Bot API; nil uses a default that keeps up
	// to MaxConns idle connections (default 256).
	HTTPClient *http.Client
	MaxConns   int
	// MaxUpload is the largest file nod sends (/export): the Bot API's
	// limit, 50 MB by default; a local Bot API server takes up to 2000 MB.
	MaxUpload int64
	// ChangeSetTTL is how long a change set stays open, as its Keep
	// button says (default nod.DefaultChangeSetTTL).
	ChangeSetTTL time.Duration
	// TrashRetention is how long the trash keeps a task, as the deletion's
	// question and /trash say (default nod.DefaultTrashRetention).
	TrashRetention time.Duration
	// SweepInterval is how often the sweep runs (default 1m).
	SweepInterval time.Duration
	// UpdateTimeout bounds the handling of one update, every model step
	// and tool call included.
	UpdateTimeout time.Duration
	// WebhookURL switches from long polling to a webhook; updates then
	// arrive through ServeHTTP with WebhookSecret in their header.
	WebhookURL    string
	WebhookSecret string
	// Metrics, if set, receives the bot's metrics.
	Metrics prometheus.Registerer
	// Limits pace outgoing messages; zero fields take Telegram's limits.
	Limits Limits
	// TimeZone serves chats that set no zone of their own (default UTC).
	TimeZone *time.Location
	// VoiceMax is the longest voice message or audio file transcribed
	// (default 5m).
	VoiceMax time.Duration
	// After waits between polls the server answered early with nothing,
	// as time.After does (the default); tests pass a settable clock's.
	After func(time.Duration) <-chan time.Time
}

// Turner runs agent turns.
type Turner interface {
	Turn(ctx context.Context, req nod.TurnRequest) (nod.TurnResult, error)
}

// Bot connects Telegram to the agent.
type Bot struct {
	opts      Options
	updates   Updates
	tasks     Tasks
	audit     AuditLog
	sets      Sets
	undos     Undos
	chats     Chats
	rulebook  Rulebook
	conv      Conversation
	messages  Messages
	buttons   Buttons
	deletions Deletions
	answers   Answers
	keeper    Keeper
	outbox    Outbox
	calls     Calls
	sweeps    Sweeper
	agent     Turner
	decide    Decider
	mend      Mender
	change    Changer
	rules     RuleDecider
	days      Days
	reminders Reminders
	places    Places
	people    People
	exports   Exporter
	// names caches what people last saved, by chat and user: a name is
	// written when it changes, not with every message.
	names   sync.Map
	ears    Transcriber
	reader  *answer.Reader // reads answers in words (docs/design.md §3.4)
	now     func() time.Time
	log     *slog.Logger
	allowed map[nod.UserID]bool

	tg       *tgbot.Bot
	files    *http.Client // downloads what people send (voice messages)
	send     *sender
	queue    *chatQueue
	handlers sync.WaitGroup // callback and update handlers in flight
	cancel   context.CancelFunc
	polling  chan struct{}
	work     context.Context
	stopWork context.CancelFunc

	mu      sync.Mutex
	refused refusals
	metrics *metrics

	gate      sync.RWMutex // held while a webhook update is queued
	accepting bool         // webhook updates are taken
}

// The bot's defaults, where Options leave them unset.
const (
	DefaultSweepInterval = time.Minute
	DefaultUpdateTimeout = 5 * time.Minute
	DefaultVoiceMax      = 5 * time.Minute
	DefaultMaxUpload     = 50 << 20
)

// New returns a bot; nothing talks to Telegram until Start.
func New(opts Options, d Deps, now func() time.Time, log *slog.Logger) *Bot {
	if opts.APIURL == "" {
		opts.APIURL = "https://api.telegram.org"
	}
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = 30 * time.Second
	}
	if opts.TrashRetention <= 0 {
		opts.TrashRetention = nod.DefaultTrashRetention
	}
	if opts.ChangeSetTTL <= 0 {
		opts.ChangeSetTTL = nod.DefaultChangeSetTTL
	}
	if opts.SweepInterval <= 0 {
		opts.SweepInterval = DefaultSweepInterval
	}
	if opts.UpdateTimeout <= 0 {
		opts.UpdateTimeout = DefaultUpdateTimeout
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = transport.DefaultMaxConns
	}
	if opts.MaxUpload <= 0 {
		opts.MaxUpload = DefaultMaxUpload
	}
	if opts.TimeZone == nil {
		opts.TimeZone = time.UTC
	}
	if opts.VoiceMax <= 0 {
		opts.VoiceMax = DefaultVoiceMax
	}
	if opts.After == nil {
		opts.After = time.After
	}
	allowed := map[nod.UserID]bool{}
	for _, id := range opts.AllowedUsers {
		allowed[id] = true
	}
	return &Bot{opts: opts, updates: d.Updates, tasks: d.Tasks, audit: d.Audit, sets: d.Sets, undos: d.Undos, chats: d.Chats, rulebook: d.Rulebook, conv: d.Conversation,
		messages: d.Messages, buttons: d.Buttons, deletions: d.Deletions, answers: d.Answers,
		keeper: d.Keeper, outbox: d.Outbox, calls: d.Calls, sweeps: d.Sweep, agent: d.Turner, decide: d.Decider, mend: d.Mender, change: d.Changer, rules: d.Rules, days: d.Days, reminders: d.Reminders, places: d.Places, people: d.People, exports: d.Exports, ears: d.Transcriber, reader: newReader(), now: now, log: log,
		allowed: allowed, queue: newChatQueue(), metrics: newMetrics(opts.Metrics)}
}

// Check asks Telegram who the bot is, so that a wrong token or address
// fails first, in words that say what to fix, before anything else
// starts (a database file included).
func (b *Bot) Check(ctx context.Context) error {
	tg, err := tgbot.New(b.opts.Token, tgbot.WithServerURL(b.opts.APIURL), tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(0, &http.Client{Timeout: 15 * time.Second}))
	if err != nil {
		return fmt.Errorf("telegram: %w", redactErr(err, b.opts.Token))
	}
	_, err = tg.GetMe(ctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tgbot.ErrorUnauthorized), errors.Is(err, tgbot.ErrorNotFound):
		return errors.New("the bot token was refused by Telegram (getMe: unauthorized): check TELEGRAM_BOT_TOKEN, as @BotFather gave it")
	default:
		return fmt.Errorf("cannot reach the Telegram Bot API at %s (check TELEGRAM_API_URL and the network): %w", b.opts.APIURL, redactErr(err, b.opts.Token))
	}
}

// Start checks the token, registers the commands and starts long polling
// from the last handled update. It returns once polling has started.
func (b *Bot) Start(ctx context.Context) error {
	last, err := b.updates.LastUpdateID(ctx)
	if err != nil {
		return err
	}
	client := b.opts.HTTPClient
	if client == nil {
		// One host, many chats at once: keep as many connections as
		// calls run at once, or each call beyond the idle pool opens a
		// new one (a TLS handshake).
		client = transport.Pooled(b.opts.MaxConns, b.opts.PollTimeout+15*time.Second)
	}
	tg, err := tgbot.New(b.opts.Token,
		tgbot.WithServerURL(b.opts.APIURL),
		tgbot.WithHTTPClient(b.opts.PollTimeout, sizedBodies{client}),
		tgbot.WithErrorsHandler(func(err error) { b.log.Warn("telegram", "err", excerpt(err.Error(), 300)) }),
		tgbot.WithCheckInitTimeout(10*time.Second),
	)
	if err != nil {
		return fmt.Errorf("connect to telegram: %w", redactErr(err, b.opts.Token))
	}
	b.tg, b.files = tg, client
	b.send = &sender{tg: tg, log: b.log, metrics: b.metrics, limit: newLimiter(b.opts.Limits, b.now, b.metrics.paced.Inc), bind: b.bindButtons}
	b.setCommands(ctx)
	// Updates are received until Stop, beyond Start's context.
	run, cancel := context.WithCancel(context.Background())
	b.cancel, b.polling = cancel, make(chan struct{})
	// Work on received updates has its own context, so that it can finish
	// after receiving stopped.
	b.work, b.stopWork = context.WithCancel(context.Background())
	if b.opts.WebhookURL != "" {
		close(b.polling) // updates come through ServeHTTP
		if err := b.startWebhook(ctx); err != nil {
			cancel()
			b.stopWork()
			b.cancel = nil
			return err
		}
	} else {
		// getUpdates fails while a webhook is set; the library never
		// removes one.
		if _, err := tg.DeleteWebhook(ctx, &tgbot.DeleteWebhookParams{}); err != nil {
			b.log.Warn("delete webhook", "err", err)
		}
		go func() {
			defer close(b.polling)
			b.poll(run, sizedBodies{client}, last+1)
		}()
	}
	b.handlers.Add(1)
	go b.sweeper(run)
	return nil
}

// Stop stops polling and waits for the handlers in flight, at most until
// ctx is done. It is safe to call more than once.
func (b *Bot) Stop(ctx context.Context) error {
	if b.cancel == nil {
		return nil
	}
	// Stop receiving at once (a webhook update is answered 503 from now
	// on, so Telegram delivers it again); let what was received finish
	// until ctx is done, then cut it: a cut turn writes nothing of its
	// conversation (it saves at its end).
	b.accept(false)
	b.cancel()
	b.cancel = nil
	done := make(chan struct{})
	go func() {
		<-b.polling
		b.handlers.Wait()
		b.queue.wait()
		close(done)
	}()
	select {
	case <-done:
		b.stopWork()
		return nil
	case <-ctx.Done():
		b.stopWork()
		b.log.Warn("stopping: cut the work in flight")
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return fmt.Errorf("stop bot: %w", ctx.Err())
	}
}

// setCommands registers the command menu in every language: English for
// everyone, and each other language for apps set to it.
func (b *Bot) setCommands(ctx context.Context) {
	langs := []string{formatting.DefaultLanguage}
	for _, l := range formatting.Languages() {
		if l != formatting.DefaultLanguage {
			langs = append(langs, l)
		}
	}
	for _, lang := range langs {
		loc := formatting.For(lang)
		cmds := make([]models.BotCommand, 0, len(commands))
		for _, c := range commands {
			cmds = append(cmds, models.BotCommand{Command: c.name, Description: loc.Render(c.about)})
		}
		p := &tgbot.SetMyCommandsParams{Commands: cmds}
		if lang != formatting.DefaultLanguage {
			p.LanguageCode = lang
		}
		if _, err := b.tg.SetMyCommands(ctx, p); err != nil {
			b.log.Warn("set commands", "lang", lang, "err", err)
		}
	}
}

// handle receives every update, one at a time in update order (poll and
// ServeHTTP call it in turn). It does no I/O so that it never
// holds up the next update: a text message goes to its chat's queue, which
// keeps the chat's order; a button press runs at once on its own goroutine,
// never behind a turn. Both first drop redelivered updates.
func (b *Bot) handle(u *models.Update) {
	ctx := b.work
	b.metrics.updates.WithLabelValues(updateKind(u)).Inc()
	switch {
	case u.Message != nil:
		at := messageTopic(u.Message)
		chat := at.ChatID
		if b.joinable(u.Message) && b.queue.join(at, nod.UserID(u.Message.From.ID), u) {
			b.metrics.joined.Inc()
			return // the person's turn in progress takes it in
		}
		b.job(chat, u, at, func(ctx context.Context) { b.onMessage(ctx, u) })
	case u.EditedMessage != nil:
		m := u.EditedMessage
		if b.queue.edit(nod.ChatID(m.Chat.ID), m) {
			return // nothing had started on it: only the edited text is handled
		}
		b.job(nod.ChatID(m.Chat.ID), nil, messageTopic(m), func(ctx context.Context) {
			if first, _ := b.fresh(ctx, u); first {
				b.onEdit(ctx, m)
			}
		})
	case u.CallbackQuery != nil:
		b.handlers.Add(1)
		b.metrics.presses.Inc()
		go func() {
			defer b.handlers.Done()
			defer b.metrics.presses.Dec()
			ctx, cancel := context.WithTimeout(ctx, b.opts.UpdateTimeout)
			defer cancel()
			defer b.recover(ctx, updateTopic(u))
			if tap := b.tapOf(u); tap != nil {
				b.onCallback(ctx, u.CallbackQuery, tap) // marked with its decision
				return
			}
			first, err := b.fresh(ctx, u)
			if err != nil {
				text, _ := notice(formatting.For(u.CallbackQuery.From.LanguageCode), err, nil)
				b.send.answer(ctx, u.CallbackQuery.ID, text)
			}
			if first {
				b.onCallback(ctx, u.CallbackQuery, nil)
			}
		}()
	default:
		b.log.Debug("update kind ignored", "update", u.ID)
	}
}

// job runs fn as one of chat's jobs, in the chat's order, counted as a
// message in flight, under the update's deadline; a panic is answered
// in topic at. u is the message it handles, if any, which a turn ahead
// of it may take in. Whatever runs a turn must run so: the person's
// messages join the turn the chat's worker runs (chatQueue).
func (b *Bot) job(chat nod.ChatID, u *models.Update, at nod.Topic, fn func(ctx context.Context)) {
	b.metrics.messages.Inc()
	b.queue.push(b.work, chat, u, func(ctx context.Context) {
		defer b.metrics.messages.Dec()
		ctx, cancel := context.WithTimeout(ctx, b.opts.UpdateTimeout)
		defer cancel()
		defer b.recover(ctx, at)
		fn(ctx)
	})
}

func updateKind(u *models.Update) string {
	switch {
	case u.Message != nil && u.Message.Text != "":
		return "text"
	case u.Message != nil && (u.Message.Voice != nil || u.Message.Audio != nil):
		return "voice"
	case u.Message != nil:
		return "other_message"
	case u.EditedMessage != nil:
		return "edit"
	case u.CallbackQuery != nil:
		return "callback"
	}
	return "other"
}

// fresh reports whether update u is to be handled: one from a person nod
// serves once, as firstDelivery records it; anyone else's (a stranger, a
// bot, a channel) always, unrecorded, since anyone may write to a bot and
// must not grow its database by it. A stranger's redelivered message is
// not refused twice within the hour (refusals remembers, in memory); after
// a restart it may be.
func (b *Bot) fresh(ctx context.Context, u *models.Update) (bool, error) {
	if !b.served(u) {
		return true, nil
	}
	return b.firstDelivery(ctx, u.ID)
}

// decidedWithMark are the presses whose one decision transaction marks
// their update handled (nod.Tap): a redelivery finds the mark exactly
// when it finds the decision, and the press costs no transaction of its
// own.
var decidedWithMark = map[nod.ActionKind]bool{
	nod.ActConfirm: true, nod.ActConfirmAll: true, nod.ActApplyAnyway: true, nod.ActSkipRest: true, nod.ActReject: true, nod.ActSkip: true,
}

// tapOf returns the tap of an allowed person's press that its decision
// marks handled, or nil: that update is marked first, as any other.
func (b *Bot) tapOf(u *models.Update) *nod.Tap {
	if !b.served(u) {
		return nil
	}
	a, err := DecodeAction(u.CallbackQuery.Data)
	if err != nil || !decidedWithMark[a.Kind] {
		return nil
	}
	return &nod.Tap{Update: u.ID}
}

// claim is fresh for a message: it reports whether u is to be handled,
// and tells the person when the database failed to record it.
func (b *Bot) claim(ctx context.Context, u *models.Update) bool {
	first, err := b.fresh(ctx, u)
	if err != nil && b.allowedSender(u.Message) {
		// The database failed: the update's own language, nothing stored.
		b.reply(ctx, messageTopic(u.Message), formatting.For(u.Message.From.LanguageCode).Text(formatting.InternalError.With(0)))
	}
	return first
}

// served reports whether u comes from an allowed person.
func (b *Bot) served(u *models.Update) bool {
	switch {
	case u.Message != nil:
		return b.allowedSender(u.Message)
	case u.EditedMessage != nil:
		return b.allowedSender(u.EditedMessage)
	case u.CallbackQuery != nil:
		return b.allowed[nod.UserID(u.CallbackQuery.From.ID)]
	}
	return false
}

// firstDelivery records the update and reports whether it is new. When
// it cannot be recorded (the database is read-only or full) the update is
// not handled: the caller tells the person.
func (b *Bot) firstDelivery(ctx context.Context, id int64) (bool, error) {
	first, err := b.updates.MarkUpdate(ctx, id)
	if err != nil {
		b.log.Error("mark update", "update", id, "err", err)
		return false, err
	}
	if !first {
		b.log.Info("duplicate update ignored", "update", id)
	}
	return first, nil
}

// allowedSender reports whether a message comes from an allowed person:
// strangers get no error notices.
func (b *Bot) allowedSender(m *models.Message) bool {
	return m.From != nil && b.allowed[nod.UserID(m.From.ID)]
}

// recover turns a panic into a log line and an apology.
func (b *Bot) recover(ctx context.Context, at nod.Topic) {
	if r := recover(); r != nil {
		b.log.Error("handler panic", "chat", at.ChatID, "panic", fmt.Sprint(r))
		if at.ChatID != 0 && b.send != nil {
			b.send.send(ctx, at, b.locale(ctx, at.ChatID, "").Text(formatting.Panic), 0)
		}
	}
}

// updateTopic is the topic an update came from, where an apology goes.
func updateTopic(u *models.Update) nod.Topic {
	switch {
	case u.Message != nil:
		return messageTopic(u.Message)
	case u.EditedMessage != nil:
		return messageTopic(u.EditedMessage)
	case u.CallbackQuery != nil && u.CallbackQuery.Message.Message != nil:
		return messageTopic(u.CallbackQuery.Message.Message)
	}
	return nod.Topic{}
}

// refuse tells a stranger the bot is private, naming their id: on their
// first message in a chat, then at most once an hour.
func (b *Bot) refuse(ctx context.Context, at nod.Topic, user nod.UserID, lang string) {
	chat := at.ChatID
	b.mu.Lock()
	due := b.refused.due(chat, user, b.now())
	b.mu.Unlock()
	if !due {
		return
	}
	b.log.Info("stranger refused", "chat", chat, "user", user)
	if _, err := b.send.send(ctx, at, formatting.For(lang).Text(formatting.Refusal.With(user)), 0); err != nil {
		b.log.Warn("refuse", "err", err)
	}
}

// redactErr keeps the token out of errors that might reach a log.
func redactErr(err error, token string) error {
	if token == "" {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "***"))
}
