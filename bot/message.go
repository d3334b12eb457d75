package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// lateReplyTimeout bounds what is still sent after an update's own time
// ran out: the receipts and the message that says what happened.
const lateReplyTimeout = 15 * time.Second

// maxInput bounds a text message; Telegram's own limit is 4096 characters.
const maxInput = 4096

// incoming is a text message of an allowed user.
type incoming struct {
	chat nod.ChatID
	user nod.UserID
	// thread is the forum topic the message was sent in, 0 outside one:
	// everything sent in answer goes there, and the topic's conversation
	// is the turn's.
	thread  nod.ThreadID
	msgID   int
	text    string
	replyTo int
	// speaker names the sender in a group ("Alice (1001)"); empty in a
	// private chat.
	speaker string
	// quoted says what the message replies to, for the agent: "nod's
	// message “…”", shortened; empty if it replies to none.
	quoted string
	loc    *formatting.Locale // the language to answer in
	// settings are the chat's as the update found them; nil if unknown.
	settings *nod.ChatSettings
	// more are the person's messages that came right after this one and
	// join its turn.
	more []*models.Update
	// forwarded names whose words a forwarded message carries (empty for
	// the person's own); editOf and edits are, for an edit of a message
	// nod already handled, that message and its earlier text.
	forwarded string
	editOf    int
	edits     string
	// attached is set for a photo or file, whose caption is its text.
	attached bool
	// spoken is set for the transcript of a voice message: words, never
	// a command.
	spoken bool
	// update is the message's update when the turn it starts records it
	// as handled (onMessage); 0 once it is recorded.
	update int64
	// kept says settings are the process's kept reading (incomingKept).
	kept bool
}

// topic is where the message was sent, and where its answers go.
func (in incoming) topic() nod.Topic { return nod.Topic{ChatID: in.chat, Thread: in.thread} }

// onMessage handles a message update in its chat's queue. A message
// that can only start a turn is recorded as handled by the turn's first
// write (nod.TurnRequest.Update); any other first, as fresh says.
func (b *Bot) onMessage(ctx context.Context, u *models.Update) {
	m := u.Message
	switch {
	case m.From == nil || m.From.IsBot || topicService(m):
		// Channel posts, other bots, a topic opened, renamed or closed:
		// nobody said anything.
		b.claim(ctx, u)
		return
	case !b.allowed[nod.UserID(m.From.ID)]:
		b.refuse(ctx, messageTopic(m), nod.UserID(m.From.ID), m.From.LanguageCode) // never recorded (fresh)
		return
	}
	chat := nod.ChatID(m.Chat.ID)
	in := b.incomingKept(ctx, m)
	if b.onlyTurn(m, in) {
		in.text, in.update = nod.CleanText(in.text), u.ID
		req := b.request(ctx, in)
		req.SettingsKept = in.kept
		switch b.turn(ctx, in, req) {
		case turnRan:
			b.refreshOwed(ctx, chat, in.loc)
			return
		case turnDropped:
			return
		}
		b.log.Debug("settings moved since kept: message routed again", "chat", chat)
	}
	if in.kept {
		in = b.incoming(ctx, m)
	}
	if !b.claim(ctx, u) {
		return
	}
	if m.Location != nil && b.places != nil {
		b.onLocation(ctx, in, m.Location.Latitude, m.Location.Longitude)
		return
	}
	if (m.Voice != nil || m.Audio != nil) && b.ears != nil {
		text, ok := b.hear(ctx, in, m)
		if !ok {
			return
		}
		in.text, in.spoken = text, true
	}
	b.onText(ctx, in)
	b.refreshOwed(ctx, chat, in.loc)
}

// onlyTurn reports whether onText would hand message m, read as in, to
// the agent and nothing else: plain words no other reading takes (no
// command, no answer in words, no reply, no typed confirmation or
// /forget waiting), or a forwarded message.
func (b *Bot) onlyTurn(m *models.Message, in incoming) bool {
	if m.Location != nil || m.Voice != nil || m.Audio != nil || in.settings == nil {
		return false
	}
	text := nod.CleanText(in.text)
	if text == "" || utf8.RuneCountInString(text) > maxInput {
		return false
	}
	if in.forwarded != "" {
		return true
	}
	return !in.settings.DeletionAsked && !in.settings.ForgetAsked && in.replyTo == 0 && !strings.HasPrefix(text, "/") && !b.reader.Read(text).Whole
}

// incoming reads a message of an allowed person.
func (b *Bot) incoming(ctx context.Context, m *models.Message) incoming {
	return b.incomingBy(ctx, m, false)
}

// incomingKept is incoming by the settings the process kept, where it
// keeps them (in.kept): only a plain turn may run on them, which checks
// them as it starts.
func (b *Bot) incomingKept(ctx context.Context, m *models.Message) incoming {
	return b.incomingBy(ctx, m, true)
}

// incomingBy is incoming, by the kept settings if kept and the process
// keeps a reading.
func (b *Bot) incomingBy(ctx context.Context, m *models.Message, kept bool) incoming {
	in := incoming{chat: nod.ChatID(m.Chat.ID), thread: messageTopic(m).Thread, user: nod.UserID(m.From.ID), msgID: m.ID, text: words(m), attached: attached(m)}
	var s nod.ChatSettings
	if kept {
		s, in.kept = b.chats.KeptSettings(in.chat, in.user)
		// A language newly seen is written to the settings, which the
		// turn would then find moved: read them as they are instead.
		in.kept = in.kept && !newLanguage(s, m.From.LanguageCode)
	}
	if in.kept {
		in.loc, in.settings = b.localeOf(ctx, in.chat, m.From.LanguageCode, s, nil)
	} else {
		in.loc, in.settings = b.settings(ctx, in.chat, in.user, m.From.LanguageCode)
	}
	if m.Chat.Type != models.ChatTypePrivate {
		in.speaker = speaker(m.From)
		b.remember(ctx, in.chat, *m.From)
	}
	if r := repliesTo(m); r != nil {
		in.replyTo = r.ID
		in.quoted = replied(r, in.speaker != "")
	}
	in.forwarded = forwardedFrom(m.ForwardOrigin, b.zone(in.settings))
	return in
}

// messageTopic is the topic a message was sent in. Only a forum topic's
// message names one: a reply elsewhere carries the thread id of its reply
// chain too, and Telegram refuses a message sent to that.
func messageTopic(m *models.Message) nod.Topic {
	at := nod.Topic{ChatID: nod.ChatID(m.Chat.ID)}
	if m.IsTopicMessage {
		at.Thread = nod.ThreadID(m.MessageThreadID)
	}
	return at
}

// repliesTo is the message m replies to, if the person replied to one: a
// message in a forum topic that replies to nothing comes as a reply to the
// message that opened the topic.
func repliesTo(m *models.Message) *models.Message {
	r := m.ReplyToMessage
	if r == nil || r.ForumTopicCreated != nil || (m.IsTopicMessage && r.ID == m.MessageThreadID) {
		return nil
	}
	return r
}

// topicService reports whether m is Telegram's note that a forum topic
// was opened, renamed, closed, reopened, hidden or shown.
func topicService(m *models.Message) bool {
	return m.ForumTopicCreated != nil || m.ForumTopicEdited != nil || m.ForumTopicClosed != nil || m.ForumTopicReopened != nil ||
		m.GeneralForumTopicHidden != nil || m.GeneralForumTopicUnhidden != nil
}

// joinable reports whether a message may join its sender's turn in
// progress: plain text of an allowed person, to be sent to the agent as
// it is. Commands, answers ("yes", "no to 2"), replies (a reason, a
// revision) and anything too long wait for the turn to end and are
// handled in order then. It reads nothing: it runs as updates arrive.
func (b *Bot) joinable(m *models.Message) bool {
	text := words(m)
	if m.From == nil || m.From.IsBot || !b.allowed[nod.UserID(m.From.ID)] || text == "" || strings.HasPrefix(text, "/") || m.Voice != nil || m.Audio != nil ||
		repliesTo(m) != nil || utf8.RuneCountInString(text) > maxInput {
		return false
	}
	if m.ForwardOrigin != nil {
		return true // someone else's words for the agent, never an answer
	}
	return !b.reader.Read(text).Whole
}

// joined reads the messages that joined a turn, dropping redeliveries.
func (b *Bot) joined(ctx context.Context, in incoming, us []*models.Update) []nod.ChatMessage {
	var out []nod.ChatMessage
	for _, u := range us {
		if first, _ := b.firstDelivery(ctx, u.ID); !first {
			continue
		}
		out = append(out, nod.ChatMessage{Role: nod.RoleUser, Content: nod.CleanText(words(u.Message)), UserID: in.user, Speaker: in.speaker,
			MsgID: u.Message.ID, Forwarded: forwardedFrom(u.Message.ForwardOrigin, b.zone(in.settings))})
	}
	return out
}

// burst runs the messages that joined a turn after it last looked: they
// start the next turn together, in order, before anything queued behind.
func (b *Bot) burst(ctx context.Context, left []*models.Update) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.UpdateTimeout)
	defer cancel()
	for i, u := range left {
		if first, _ := b.firstDelivery(ctx, u.ID); !first {
			continue
		}
		in := b.incoming(ctx, u.Message)
		in.text, in.more = nod.CleanText(in.text), left[i+1:]
		b.turn(ctx, in, b.request(ctx, in))
		b.refreshOwed(ctx, in.chat, in.loc)
		return
	}
}

// onText handles one text message, in the chat's order.
func (b *Bot) onText(ctx context.Context, in incoming) {
	switch {
	case in.text == "" && in.attached:
		b.reply(ctx, in.topic(), in.loc.Text(formatting.NoCaption))
		return
	case in.text == "":
		b.reply(ctx, in.topic(), in.loc.Text(formatting.NotText))
		return
	}
	in.text = nod.CleanText(in.text)
	if n := utf8.RuneCountInString(in.text); n > maxInput {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.TooLong.With(n)))
		return
	}
	if in.forwarded != "" {
		// Someone else's words: never a command, an answer or a
		// confirmation, only something for the agent to read.
		b.turn(ctx, in, b.request(ctx, in))
		return
	}
	if b.forgetAnswer(ctx, in) {
		return
	}
	consumed, moveOn := b.typedConfirmation(ctx, in)
	if moveOn {
		// Once this message is handled, so that its replies come first;
		// even when its time ran out, or the next question waits a sweep.
		defer func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lateReplyTimeout)
			defer cancel()
			b.askDeletion(ctx, in.chat, in.user, in.loc)
		}()
	}
	if consumed {
		return
	}
	if name, ok := commandName(in.text); ok && !in.spoken {
		for _, c := range commands {
			if c.name == name {
				c.run(b, ctx, in)
				return
			}
		}
	}
	if b.yesNo(ctx, in) || b.reason(ctx, in) {
		return
	}
	b.turn(ctx, in, b.request(ctx, in))
}

// request is the agent turn a message of the person's starts.
func (b *Bot) request(ctx context.Context, in incoming) nod.TurnRequest {
	req := nod.TurnRequest{Topic: in.topic(), UserID: in.user, Text: in.text, Speaker: in.speaker, ReplyTo: in.quoted,
		MsgID: in.msgID, Forwarded: in.forwarded, EditOf: in.editOf, Edits: in.edits,
		Lang: in.loc.Code(), Settings: in.settings, Update: in.update}
	if in.forwarded == "" {
		req.Revise = b.answers.Revision(ctx, in.chat, in.user, in.replyTo, in.text)
	}
	if in.speaker != "" {
		req.MayChangeChat = func(ctx context.Context) bool { return b.mayChange(ctx, in.chat, in.user, true) }
	}
	if in.replyTo != 0 {
		if set, err := b.sets.ChangeSetByMessage(ctx, in.chat, in.replyTo); err == nil {
			req.ReplySet = set.ID
		}
		if t, ok := b.cardOf(ctx, in.chat, in.replyTo); ok {
			// A reply to a task card is about that task: the agent is told
			// which, as the card's text alone may not say it exactly.
			req.ReplyTo = fmt.Sprintf("the card of task %s “%s” (%s)", t.ID, t.Title, req.ReplyTo)
		}
	}
	return req
}

// cardOf is the task whose card message msgID is, as the buttons it was
// sent or edited with name it; false if it is no card, or its task is
// gone.
func (b *Bot) cardOf(ctx context.Context, chat nod.ChatID, msgID int) (nod.Task, bool) {
	data, err := b.buttons.MessageButtons(ctx, chat, msgID)
	if err != nil {
		return nod.Task{}, false
	}
	for _, d := range data {
		a, err := DecodeAction(d)
		if err != nil || a.Kind != nod.ActCardDone && a.Kind != nod.ActCardReopen {
			continue
		}
		t, err := b.tasks.Task(ctx, chat, nod.TaskID(a.ID))
		return t, err == nil
	}
	return nod.Task{}, false
}

// words are what a message says in writing: its text, or the caption of
// its photo or file (docs/design.md §11).
func words(m *models.Message) string {
	if t := strings.TrimSpace(m.Text); t != "" {
		return t
	}
	return strings.TrimSpace(m.Caption)
}

// attached reports whether a message carries a photo or file, which nod
// does not look at: it reads only the caption.
func attached(m *models.Message) bool {
	return len(m.Photo) > 0 || m.Document != nil || m.Video != nil || m.Animation != nil || m.VideoNote != nil
}

// speaker names a person as every line of a group's conversation does:
// their first name, cut short and on one line, and their id, which no one
// else shares.
func speaker(u *models.User) string {
	name := shortName(u.FirstName)
	if name == "" {
		name = "User"
	}
	return fmt.Sprintf("%s (%d)", name, u.ID)
}

// shortName is a name as every line that carries one shows it: cut short
// and on one line.
func shortName(s string) string {
	name := strings.Join(strings.Fields(nod.CleanText(s)), " ")
	if r := []rune(name); len(r) > maxSpeaker {
		name = string(r[:maxSpeaker]) + "…"
	}
	return name
}

// maxSpeaker and maxQuoted bound what a name and a replied-to text add to
// every request that carries them.
const (
	maxSpeaker = 32
	maxQuoted  = 300
)

// replied says what a message replies to: whose message it was and its
// text, shortened. nod's own messages are said to be nod's, so the agent
// knows it is asked about what it wrote.
func replied(r *models.Message, group bool) string {
	text := r.Text
	if text == "" {
		text = r.Caption
	}
	text = strings.Join(strings.Fields(nod.CleanText(text)), " ")
	if rs := []rune(text); len(rs) > maxQuoted {
		text = string(rs[:maxQuoted]) + "…"
	}
	whose := "an earlier message"
	switch {
	case r.From != nil && r.From.IsBot:
		whose = "nod's message"
	case r.From != nil && group:
		whose = speaker(r.From) + "'s message"
	case r.From != nil:
		whose = "their own earlier message"
	}
	if text == "" {
		return whose
	}
	return whose + " “" + text + "”"
}

// commandName returns "tasks" for "/tasks" or "/tasks@nod_bot args".
func commandName(text string) (string, bool) {
	if !strings.HasPrefix(text, "/") {
		return "", false
	}
	name, _, _ := strings.Cut(text[1:], " ")
	name, _, _ = strings.Cut(name, "@")
	return strings.ToLower(name), name != ""
}

// joinTurn opens the turn of req to the person's next plain messages
// (chatQueue), and reports whether it did: only the chat's worker can.
func (b *Bot) joinTurn(in incoming, req *nod.TurnRequest) bool {
	joins := func(u *models.Update) bool { return b.joinable(u.Message) }
	taken, opened := b.queue.open(in.topic(), in.user, in.more, joins)
	if !opened {
		b.log.Error("a turn ran outside its chat's queue: no message joins it", "chat", in.chat)
		return false
	}
	b.metrics.joined.Add(float64(taken))
	b.metrics.messages.Sub(float64(taken)) // handled by this turn now, not by jobs of their own
	req.More = func(ctx context.Context) []nod.ChatMessage { return b.joined(ctx, in, b.queue.take(in.chat)) }
	return true
}

// turnOutcome is what came of a message's turn.
type turnOutcome int

const (
	turnRan     turnOutcome = iota
	turnDropped             // a redelivery, or a command that answered nothing
	turnMoved               // its kept settings moved: nothing ran, nothing was sent
)

// turn runs an agent turn and sends what it produced, in the contract's
// order: the receipts, the agent's final text, then the change-set
// message. A step's receipts go out as soon as its changes are applied,
// beside the model's next call; the set waits for the final text.
func (b *Bot) turn(ctx context.Context, in incoming, req nod.TurnRequest) turnOutcome {
	joining := !req.Review && b.joinTurn(in, &req)
	if joining {
		defer b.queue.close(in.chat, b.burst) // a panic, too, ends the turn's taking
	}
	// "typing…" goes out beside the model's first call rather than
	// before it, where Telegram's round trip would add to every turn, and
	// once the turn's opening is saved, so that a redelivery shows
	// nothing; it is through before any message, or it would show after
	// the reply.
	early := b.beside(in)
	req.Opened = early.typing
	req.Progress = early.progress
	res, err := b.agent.Turn(ctx, req)
	if joining {
		// The agent is done: what the person sends from now on is routed
		// as usual (it may answer what this turn asks); what joined since
		// its last look runs next, as a turn of its own.
		b.queue.close(in.chat, b.burst)
	}
	early.wait()
	loc := turnLocale(in.loc, res)
	if errors.Is(err, nod.ErrSettingsMoved) {
		return turnMoved
	}
	if errors.Is(err, nod.ErrHandled) {
		b.log.Info("duplicate update ignored", "update", req.Update)
		return turnDropped
	}
	if errors.Is(err, nod.ErrNotAsked) {
		return turnDropped // a command that answered no question of the agent's
	}
	if err != nil {
		tmpl := formatting.InternalError
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			tmpl = formatting.TurnTimeout // the update's own deadline, whichever step it cut
		case errors.Is(err, nod.ErrModel):
			tmpl = formatting.ModelError
		}
		// The update's time may be up: what is owed still goes out.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lateReplyTimeout)
		defer cancel()
		b.sendReceipts(ctx, loc, in, early.rest(res)) // what was applied before the failure, unless sent already
		b.log.Warn("turn failed", "chat", in.chat, "applied", len(res.Receipts), "err", err)
		// One message that says what did apply (the receipts above) and
		// that nothing else did.
		if b.reply(ctx, in.topic(), loc.Text(tmpl.With(len(res.Receipts)))) != 0 && res.Turn != "" {
			b.delivered(ctx, in.chat, nod.OwedAnswer, res.Turn) // told now: no "I stopped" later
		}
		return turnRan
	}
	b.sendReceipts(ctx, loc, in, early.rest(res))
	text := formatting.ModelText(strings.TrimSpace(res.Text))
	if req.Forwarded != "" && res.Set != nil {
		// Why nod asks though the person sent the words: they are not theirs.
		text = strings.TrimSpace(text + "\n\n" + loc.Text(formatting.ForwardedAsks).HTML)
	}
	switch {
	case text != "":
		b.reply(ctx, in.topic(), formatting.Message{HTML: text})
	case res.Set == nil && len(res.Receipts) == 0 && len(res.Notices) == 0 && len(res.Deletions) == 0:
		b.reply(ctx, in.topic(), loc.Text(formatting.EmptyReply))
	}
	if res.StepsExhausted {
		b.reply(ctx, in.topic(), loc.Text(formatting.StepsExhausted.With(res.Steps)))
	}
	if res.Revised != nil {
		b.refresh(ctx, loc, *res.Revised, 0, 0, nil)
	}
	for _, id := range res.Answered {
		if set, err := b.sets.ChangeSet(ctx, in.chat, id); err == nil {
			b.refresh(ctx, loc, set, 0, 0, nil)
		}
	}
	for _, r := range res.Readings {
		if set, err := b.sets.ChangeSet(ctx, in.chat, r.SetID); err == nil {
			b.reply(ctx, in.topic(), loc.Changes().Reading(r, set))
		}
	}
	for _, id := range res.Superseded {
		if old, err := b.sets.ChangeSet(ctx, in.chat, id); err == nil {
			b.refresh(ctx, loc, old, 0, 0, nil)
		}
	}
	if res.Set != nil {
		b.showChangeSet(ctx, loc, *res.Set)
	}
	b.offerZone(ctx, loc, in.topic(), res.ZoneOffer)
	b.offerRule(ctx, loc, in.topic(), res.RuleOffer)
	if len(res.Deletions) > 0 {
		b.askDeletion(ctx, in.chat, in.user, loc) // the first; the others once it ends
	}
	return turnRan
}

// turnLocale is the locale a turn's messages are written in: in the zone
// the person named during the turn, applied or offered, since that is the
// zone the turn read their dates and times in.
func turnLocale(loc *formatting.Locale, res nod.TurnResult) *formatting.Locale {
	named := ""
	switch {
	case res.Zone != nil:
		named = res.Zone.After
	case res.ZoneOffer != nil:
		named = res.ZoneOffer.After
	}
	if zone, err := nod.LoadZone(named); named != "" && err == nil {
		return loc.In(zone)
	}
	return loc
}

// sendReceipts reports what a turn applied without asking, and what it
// found already done; the receipts come first in a turn's messages. In a
// group they name the person whose turn it was. It reports whether the
// receipts went out.
func (b *Bot) sendReceipts(ctx context.Context, loc *formatting.Locale, in incoming, res nod.TurnResult) bool {
	sent, _ := b.sendReceiptsAt(ctx, loc, in, res)
	return sent
}

// sendReceiptsAt is sendReceipts that also returns the id of the message
// showing the changes of nod's own tasks (0: none went out).
func (b *Bot) sendReceiptsAt(ctx context.Context, loc *formatting.Locale, in incoming, res nod.TurnResult) (bool, int) {
	chat, at := in.chat, in.topic()
	msg := 0
	if z := res.Zone; z != nil {
		// First: the turn read the person's dates and times in it.
		b.reply(ctx, at, loc.Day().TimeZoneReceipt(*z, b.now(), res.ZoneQuote, b.nameOf(ctx, chat, in.user)))
	}
	sent := false
	own, calls := splitCalls(res.Receipts)
	if len(own) > 0 {
		rs := make([]formatting.Receipt, len(own))
		who := b.nameOf(ctx, chat, in.user)
		for i, r := range own {
			rs[i] = formatting.Receipt{TaskTitle: r.TaskTitle, Item: r.Item, Quote: r.Quote, Trusted: r.Trusted, Rule: r.Rule, Who: who}
		}
		if msg = b.reply(ctx, at, loc.Changes().Receipts(rs)); msg != 0 {
			ids := make([]string, len(own))
			for i, r := range own {
				ids[i] = string(r.Item.UndoID)
			}
			b.delivered(ctx, chat, nod.OwedReceipt, ids...)
			sent = true
		}
	}
	if len(calls) > 0 {
		who := b.nameOf(ctx, chat, in.user)
		for _, r := range calls {
			// One message per call: it has no Undo, and each says what ran.
			fr := formatting.Receipt{Item: r.Item, Quote: r.Quote, Trusted: r.Trusted, Rule: r.Rule, Who: who, Call: r.Call}
			if b.reply(ctx, at, loc.Changes().CallReceipt(fr)) != 0 {
				b.delivered(ctx, chat, nod.OwedCall, r.Call.ID)
				sent = true
			}
		}
	}
	for _, n := range res.Notices {
		b.reply(ctx, at, loc.Text(formatting.NoteMessage.With(loc.Changes().Remark(n))))
	}
	changed := make([]nod.TaskID, 0, len(own))
	for _, r := range own {
		changed = append(changed, r.Item.TaskID)
		if dealtWith(r.Item) {
			b.remindersDealtWith(ctx, loc, chat, r.Item, b.nameOf(ctx, chat, in.user))
		}
	}
	b.refreshCards(ctx, loc, chat, in.replyTo, changed)
	return sent, msg
}

// reply sends m to topic at, logging a failure: there is no one else to
// tell.
func (b *Bot) reply(ctx context.Context, at nod.Topic, m formatting.Message) int {
	id, err := b.send.send(ctx, at, m, 0)
	if err != nil {
		b.sendFailed(ctx, err, "chat", at.ChatID, "thread", at.Thread)
	}
	return id
}

// sendFailed logs a message that could not be sent. One cut short because
// nod is stopping is no fault: what nod owes is in the outbox and goes
// out after the restart.
func (b *Bot) sendFailed(ctx context.Context, err error, args ...any) {
	if ctx.Err() != nil {
		b.log.Info("send cut short: nod is stopping", append(args, "err", err)...)
		return
	}
	b.log.Error("send", append(args, "err", err)...)
}

func (b *Bot) cmdStart(ctx context.Context, in incoming) {
	b.reply(ctx, in.topic(), in.loc.Text(formatting.Start))
}

func (b *Bot) cmdHelp(ctx context.Context, in incoming) {
	b.reply(ctx, in.topic(), in.loc.Text(formatting.Help))
}

// cmdLang shows or sets the chat's language: "/lang de", "/lang auto"
// (follow the Telegram app).
func (b *Bot) cmdLang(ctx context.Context, in incoming) {
	_, arg, _ := strings.Cut(in.text, " ")
	arg = strings.ToLower(strings.TrimSpace(arg))
	switch {
	case arg == "":
		b.reply(ctx, in.topic(), in.loc.Text(formatting.LangShow.With(formatting.Languages())))
		return
	case arg == "auto":
		arg = ""
	case !formatting.Supported(arg):
		b.reply(ctx, in.topic(), in.loc.Text(formatting.LangShow.With(formatting.Languages())))
		return
	}
	if !b.mayChangeChat(ctx, in, "lang") {
		return
	}
	if err := b.chats.SetLanguage(ctx, in.chat, arg); err != nil {
		b.log.Error("set language", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.reply(ctx, in.topic(), b.locale(ctx, in.chat, "").Text(formatting.LangSet))
}

// remember keeps the name u goes by in group chat, written only when it
// changed since this process last saw it. Only groups name people.
func (b *Bot) remember(ctx context.Context, chat nod.ChatID, u models.User) {
	name := shortName(u.FirstName)
	if b.people == nil || name == "" {
		return
	}
	key := [2]int64{int64(chat), u.ID}
	if v, ok := b.names.Load(key); ok && v.(string) == name {
		return
	}
	if err := b.people.SaveMember(ctx, chat, nod.UserID(u.ID), name); err != nil {
		b.log.Warn("save member's name", "chat", chat, "user", u.ID, "err", err)
		return
	}
	b.names.Store(key, name)
}

// nameOf is the name user goes by in chat, "" if nod never saw it.
func (b *Bot) nameOf(ctx context.Context, chat nod.ChatID, user nod.UserID) string {
	key := [2]int64{int64(chat), int64(user)}
	if v, ok := b.names.Load(key); ok {
		return v.(string)
	}
	if b.people == nil {
		return ""
	}
	name, err := b.people.MemberName(ctx, chat, user)
	if err != nil {
		b.log.Warn("member's name", "chat", chat, "user", user, "err", err)
	}
	if name != "" {
		b.names.Store(key, name)
	}
	return name
}
