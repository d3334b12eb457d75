package main

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/cmd/internal/app"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage"
	"go.uber.org/fx"
)

// player is the person at the page: in a private chat, whose id is the
// person's; with -group, Alice in a group chat with Bob.
const (
	player = 4242
	bob    = 4343
	group  = -player
)

// members are the people of a group play, by the names commands use.
var members = map[string]int64{"alice": player, "bob": bob}

// typingFor is how long Telegram shows "typing…" after a chat action.
const typingFor = 5 * time.Second

//go:embed page.html
var pageFS embed.FS

var page = template.Must(template.ParseFS(pageFS, "page.html"))

// playground is nod on the Bot API stand-in, and the page that is its chat.
type playground struct {
	addr   string
	model  string
	chatID int64 // the chat played: the player's private chat, or the group
	log    *slog.Logger
	tg     *telegramtest.Server
	llm    *openaitest.Server // the tour's or the relay's; nil with a real endpoint
	tour   bool
	// voice is set when nod has a speech-to-text endpoint: the page then
	// records voice messages.
	voice bool
	relay *relay
	srv   *http.Server
	stop  context.CancelFunc // stops nod and the view
	// exited is closed once nod has returned, with its result in runErr:
	// both a failed start and close wait for it, so it is closed rather
	// than sent on, which only one of them would receive.
	exited chan struct{}
	runErr error
	quit   chan struct{} // closed by close: ends long polls
	tmp    string        // a temporary directory to remove, if any
	db     string        // nod's database, for the chat's time zone
	// ahead is how far the page's clock control moved nod's clock, in
	// nanoseconds: reminders and daily reviews are seen without waiting.
	ahead atomic.Int64
	zone  *time.Location // NOD_TIMEZONE, for a chat that set none
	shown *time.Location // the zone the page shows nod's time in; under mu

	mu       sync.Mutex
	version  uint64
	changed  chan struct{} // closed and replaced on every change of the view
	typingAt time.Time     // the latest chat action not followed by a message
	actions  int           // chat actions seen
	botMsgs  int           // bot messages seen
	presses  []string      // callback queries whose answer is not shown yet
	notices  []notice
}

// notice is the text of an answered button press: Telegram shows it as a
// toast.
type notice struct {
	Seq  int    `json:"seq"`
	Text string `json:"text"`
}

func (p *playground) modelName() string {
	switch {
	case p.tour:
		return "guided tour"
	case p.relay != nil:
		return "model relayed through " + p.relay.dir
	}
	return "model " + p.model
}

// start runs the Bot API stand-in, the tour's models if wanted, nod, and
// the page; it returns once nod polls and the page listens.
// environ holds nod's settings from the environment (NOD_*, OPENAI_*);
// those of the Bot API stand-in replace any given.
func start(ctx context.Context, o options, environ map[string]string, nodLog io.Writer, log *slog.Logger) (*playground, error) {
	p := &playground{log: log, changed: make(chan struct{}), quit: make(chan struct{}), exited: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			p.close()
		}
	}()
	// What would fail a test of the fakes (a message Telegram would
	// reject, say) is logged.
	fakeLog := log.With("component", "fake")
	logf := func(format string, args ...any) { fakeLog.Error(fmt.Sprintf(format, args...)) }
	p.tg = telegramtest.NewLogged(logf)
	p.chatID = player
	allowed := strconv.FormatInt(player, 10)
	if o.group {
		p.chatID, allowed = group, allowed+","+strconv.FormatInt(bob, 10)
		p.tg.SetName(player, "Alice")
		p.tg.SetName(bob, "Bob")
		p.tg.SetLanguage(bob, o.lang)
	}
	p.tg.SetLanguage(player, o.lang)
	if o.db == "" {
		dir, err := os.MkdirTemp("", "nodplay")
		if err != nil {
			return nil, err
		}
		p.tmp, o.db = dir, filepath.Join(dir, "nod.db")
	}
	env := maps.Clone(environ)
	if env == nil {
		env = map[string]string{}
	}
	for k, v := range map[string]string{
		"TELEGRAM_BOT_TOKEN": telegramtest.Token, "TELEGRAM_API_URL": p.tg.URL,
		"NOD_DB": o.db, "NOD_ALLOWED_USERS": allowed, "NOD_HTTP_ADDR": "127.0.0.1:0",
	} {
		env[k] = v
	}
	switch o.model {
	case "tour":
		p.tour, p.llm = true, openaitest.NewLogged(logf)
		p.llm.Handle(tour{now: time.Now}.answer)
		env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"] = p.llm.URL, ""
		env["NOD_MODEL"], env["NOD_CLASSIFIER_MODEL"] = tourModel, tourClassifierModel
	case "endpoint":
		if env["OPENAI_BASE_URL"] == "" {
			return nil, errors.New("-model endpoint needs OPENAI_BASE_URL (and NOD_MODEL, OPENAI_API_KEY as nod serve reads them)")
		}
	case "relay":
		rl, err := newRelay(o.relayDir, log, p.changedElsewhere)
		if err != nil {
			return nil, err
		}
		p.relay, p.llm = rl, openaitest.NewLogged(logf)
		p.llm.Handle(rl.answer)
		env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"] = p.llm.URL, ""
		env["NOD_MODEL"], env["NOD_CLASSIFIER_MODEL"] = relayAgentModel, relayClassifierModel
		// Whoever plays the model takes minutes, not seconds: nod waits for
		// them unless told otherwise.
		for k, v := range map[string]string{"NOD_STEP_TIMEOUT": "15m", "NOD_CLASSIFIER_TIMEOUT": "15m", "NOD_UPDATE_TIMEOUT": "2h"} {
			if env[k] == "" {
				env[k] = v
			}
		}
	default:
		return nil, fmt.Errorf("-model %q: want tour, endpoint or relay:DIR", o.model)
	}
	p.model = env["NOD_MODEL"]
	// The tour's and the relay's fakes transcribe nothing; a real
	// endpoint, or one named for speech alone, may.
	p.voice = o.model == "endpoint" || env["NOD_TRANSCRIBE_URL"] != ""
	p.db = o.db
	p.zone = time.UTC
	if z, err := nod.LoadZone(env["NOD_TIMEZONE"]); err == nil {
		p.zone = z
	}
	p.shown = p.zone
	if env["NOD_SWEEP_INTERVAL"] == "" {
		env["NOD_SWEEP_INTERVAL"] = "1s" // a moved clock shows its reminders at once
	}
	last, err := prepare(ctx, o.db, p.chatID, o.seed, log)
	if err != nil {
		return nil, err
	}
	p.tg.ContinueAfter(last)

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return nil, fmt.Errorf("the page's address: %w (choose another with -addr)", err)
	}
	p.addr = ln.Addr().String()
	run, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	polls := len(p.tg.Calls("getUpdates"))
	go func() {
		defer close(p.exited)
		p.runErr = app.Run(run, []string{"serve"}, func(k string) string { return env[k] }, nodLog, nodLog,
			fx.Decorate(func() app.Clock { return p.now }))
	}()
	if err := p.waitPolling(ctx, polls); err != nil {
		ln.Close()
		return nil, err
	}
	go p.watch(run)
	if p.relay != nil {
		go p.followCommands(run, p.relay.dir)
		go p.keepChatFile(run, p.relay.dir)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", p.page)
	mux.HandleFunc("GET /chat", p.chat)
	mux.HandleFunc("POST /send", p.send)
	mux.HandleFunc("POST /voice", p.sendVoice)
	mux.HandleFunc("POST /press", p.press)
	mux.HandleFunc("POST /forward", p.forward)
	mux.HandleFunc("POST /edit", p.editMessage)
	mux.HandleFunc("POST /clock", p.clock)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("page server", "err", err)
		}
	}()
	ok = true
	return p, nil
}

// waitPolling waits until nod asks the stand-in for updates, or fails.
func (p *playground) waitPolling(ctx context.Context, polls int) error {
	for {
		_, changed := p.tg.Changes()
		if len(p.tg.Calls("getUpdates")) > polls {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("nod did not start: %w", p.runErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// close stops the page, nod and the fakes; safe to call once start began.
func (p *playground) close() error {
	var err error
	close(p.quit)
	if p.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p.srv.Shutdown(ctx)
	}
	if p.stop != nil {
		p.stop()
		<-p.exited
		err = p.runErr
	}
	if p.llm != nil {
		p.llm.Close()
	}
	if p.tg != nil {
		p.tg.Close()
	}
	if p.tmp != "" {
		os.RemoveAll(p.tmp)
	}
	return err
}

// watch follows the stand-in's changes: chat actions, new bot messages
// and answered presses change the view.
func (p *playground) watch(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		_, changed := p.tg.Changes()
		p.mu.Lock()
		if n := p.countActions(); n > p.actions {
			p.actions, p.typingAt = n, time.Now()
			timer.Reset(typingFor)
		}
		if n := len(p.tg.BotMessages(p.chatID)); n > p.botMsgs {
			p.botMsgs, p.typingAt = n, time.Time{}
		}
		waiting := p.presses[:0]
		for _, id := range p.presses {
			text, answered := p.tg.Answer(id)
			switch {
			case !answered:
				waiting = append(waiting, id)
			case text != "":
				p.notices = append(p.notices, notice{Seq: len(p.notices) + 1, Text: text})
			}
		}
		p.presses = waiting
		p.bump()
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-timer.C: // typing… has run out
		}
	}
}

// countActions counts the chat actions nod sent to the player's chat.
func (p *playground) countActions() int {
	n := 0
	for _, c := range p.tg.Calls("sendChatAction") {
		if c.Params.Get("chat_id") == strconv.FormatInt(p.chatID, 10) {
			n++
		}
	}
	return n
}

// changedElsewhere marks a change of the view that the stand-in did not
// see (the relay's waiting).
func (p *playground) changedElsewhere() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bump()
}

// bump marks a change of the view; p.mu must be held.
func (p *playground) bump() {
	p.version++
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *playground) page(w http.ResponseWriter, r *http.Request) {
	data := struct {
		Model string
		Steps []step
		Voice bool
	}{Model: p.modelName(), Voice: p.voice}
	if p.tour {
		data.Steps = tourSteps
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := page.Execute(w, data); err != nil {
		p.log.Error("page", "err", err)
	}
}

// view is the chat as the page shows it.
type view struct {
	Version uint64        `json:"version"`
	Typing  bool          `json:"typing"`
	Waiting string        `json:"waiting,omitempty"` // for the relayed model
	Notice  *notice       `json:"notice,omitempty"`
	Msgs    []viewMessage `json:"messages"`
	Clock   string        `json:"clock"` // nod's time, in the chat's zone
}

type viewMessage struct {
	ID      int    `json:"id"`
	Bot     bool   `json:"bot"`
	From    string `json:"from,omitempty"` // in a group play: who wrote it
	HTML    string `json:"html"`
	ReplyTo int    `json:"reply_to,omitempty"`
	Edited  bool   `json:"edited"`
	// Forwarded names who first wrote a message the person forwarded.
	Forwarded string         `json:"forwarded,omitempty"`
	Buttons   [][]viewButton `json:"buttons,omitempty"`
}

type viewButton struct {
	Text string `json:"text"`
	Data string `json:"data"`
}

// chat answers the view once it is newer than ?after=, waiting up to 25 s
// for a change (a long poll).
func (p *playground) chat(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.ParseUint(r.URL.Query().Get("after"), 10, 64)
	timeout := time.NewTimer(25 * time.Second)
	defer timeout.Stop()
wait:
	for {
		p.mu.Lock()
		version, changed := p.version, p.changed
		p.mu.Unlock()
		if version > after {
			break
		}
		select {
		case <-changed:
		case <-timeout.C:
			break wait
		case <-p.quit:
			break wait
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(p.view())
}

func (p *playground) view() view {
	p.mu.Lock()
	v := view{Version: p.version, Typing: !p.typingAt.IsZero() && time.Since(p.typingAt) < typingFor,
		Clock: p.now().In(p.shown).Format("Mon 2 Jan 15:04 MST")}
	if n := len(p.notices); n > 0 {
		v.Notice = &p.notices[n-1]
	}
	p.mu.Unlock()
	if p.relay != nil {
		v.Waiting = p.relay.Waiting()
	}
	for _, m := range p.tg.ChatMessages(p.chatID) {
		vm := viewMessage{ID: m.ID, Bot: m.FromBot, ReplyTo: m.ReplyTo, Edited: m.Edits > 0, Forwarded: m.Forwarded}
		if p.chatID == group && !m.FromBot {
			vm.From = "alice"
			if m.UserID == bob {
				vm.From = "bob"
			}
		}
		switch {
		case m.HTML:
			vm.HTML = browserHTML(m.Text)
		case m.Kind == "voice":
			vm.HTML = template.HTMLEscapeString(fmt.Sprintf("🎤 Voice message · %d:%02d", m.Duration/60, m.Duration%60))
		default:
			vm.HTML = template.HTMLEscapeString(m.Text)
		}
		for _, row := range m.Keyboard {
			var vr []viewButton
			for _, b := range row {
				vr = append(vr, viewButton{Text: b.Text, Data: b.Data})
			}
			vm.Buttons = append(vm.Buttons, vr)
		}
		v.Msgs = append(v.Msgs, vm)
	}
	return v
}

// maxText is Telegram's limit on a message the person sends.
const maxText = 4096

// checkText trims what the person typed and checks it is a message
// Telegram would send.
func checkText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" || len([]rune(text)) > maxText {
		return "", errors.New("a message is 1 to 4096 characters")
	}
	return text, nil
}

func (p *playground) send(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Text    string `json:"text"`
		ReplyTo int    `json:"reply_to"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil {
		http.Error(w, "want JSON {text, reply_to}", http.StatusBadRequest)
		return
	}
	if err := p.say(in.Text, in.ReplyTo); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// say sends text as the person, as a reply to message replyTo if not 0.
func (p *playground) say(text string, replyTo int) error { return p.sayAs(player, text, replyTo) }

// sayAs sends text as user.
func (p *playground) sayAs(user int64, text string, replyTo int) error {
	text, err := checkText(text)
	if err != nil {
		return err
	}
	if replyTo > 0 {
		p.tg.ReplyText(p.chatID, user, replyTo, text)
	} else {
		p.tg.SendText(p.chatID, user, text)
	}
	return nil
}

// forwardAs forwards, as user, a message that from first sent: someone
// whose words nod must never take for the person's.
func (p *playground) forwardAs(user int64, from, text string) error {
	text, err := checkText(text)
	if err != nil {
		return err
	}
	p.tg.Forward(p.chatID, user, text, telegramtest.OriginUser(forwardedID, from, p.now().Add(-time.Hour)))
	return nil
}

// forward sends, as the person, a message forwarded from someone:
// {from, text}.
func (p *playground) forward(w http.ResponseWriter, r *http.Request) {
	var in struct {
		From string `json:"from"`
		Text string `json:"text"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil || strings.TrimSpace(in.From) == "" {
		http.Error(w, "want JSON {from, text}", http.StatusBadRequest)
		return
	}
	if err := p.forwardAs(player, strings.TrimSpace(in.From), in.Text); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// editMessage edits one of the person's messages: {message, text}.
func (p *playground) editMessage(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message int    `json:"message"`
		Text    string `json:"text"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil {
		http.Error(w, "want JSON {message, text}", http.StatusBadRequest)
		return
	}
	if err := p.edit(in.Message, in.Text); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// forwardedID is the Telegram id of whoever a forwarded message came from.
const forwardedID = 5005

// edit changes the text of message id, one of the person's own.
func (p *playground) edit(id int, text string) error {
	text, err := checkText(text)
	if err != nil {
		return err
	}
	if m, ok := p.tg.Message(p.chatID, id); !ok || m.FromBot {
		return fmt.Errorf("message %d is not one of the person's", id)
	}
	p.tg.EditText(p.chatID, id, text)
	return nil
}

// maxVoice bounds a recording the page sends: past Telegram's 20 MB for
// bots, nod says it is too big, so a little more must arrive.
const maxVoice = 21 << 20

// sendVoice sends the page's recording (the body, of its Content-Type;
// ?duration= seconds, ?reply_to=) as the person's voice message, which
// nod fetches and transcribes as it would one from Telegram.
func (p *playground) sendVoice(w http.ResponseWriter, r *http.Request) {
	if !p.voice {
		http.Error(w, "no speech-to-text endpoint: set NOD_TRANSCRIBE_URL, or play with -model endpoint", http.StatusNotFound)
		return
	}
	seconds, err1 := strconv.Atoi(r.URL.Query().Get("duration"))
	replyTo, err2 := strconv.Atoi(cmp.Or(r.URL.Query().Get("reply_to"), "0"))
	typ, _, err3 := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err := errors.Join(err1, err2, err3); err != nil || seconds < 0 || !strings.HasPrefix(typ, "audio/") {
		http.Error(w, "want an audio body, ?duration=SECONDS and ?reply_to=ID", http.StatusBadRequest)
		return
	}
	audio, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxVoice))
	if err != nil || len(audio) == 0 {
		http.Error(w, "a recording is 1 byte to 21 MB", http.StatusBadRequest)
		return
	}
	p.tg.SendVoice(p.chatID, player, telegramtest.Voice{Data: audio, Duration: seconds, MimeType: typ, ReplyTo: replyTo})
	w.WriteHeader(http.StatusNoContent)
}

func (p *playground) press(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message int    `json:"message"`
		Data    string `json:"data"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10)).Decode(&in); err != nil || in.Data == "" {
		http.Error(w, "want JSON {message, data}", http.StatusBadRequest)
		return
	}
	p.pressData(in.Message, in.Data)
	w.WriteHeader(http.StatusNoContent)
}

// pressData presses the button with data on message msg, as Telegram
// would deliver it: whether it is a real button is nod's to check.
func (p *playground) pressData(msg int, data string) { p.pressAs(player, msg, data) }

// pressAs presses as user.
func (p *playground) pressAs(user int64, msg int, data string) {
	id := p.tg.Press(p.chatID, user, msg, data)
	p.mu.Lock()
	p.presses = append(p.presses, id)
	p.mu.Unlock()
}

// prepare returns the last update nod handled in the database at dsn, so
// that the stand-in numbers on from it (nod would skip lower ids after a
// restart); with seed, it gives an empty database a few example tasks, as
// the person's own.
func prepare(ctx context.Context, dsn string, chat int64, seed bool, log *slog.Logger) (int64, error) {
	db := storage.New(storage.Options{DSN: dsn}, time.Now, log)
	if err := db.Open(ctx); err != nil {
		return 0, err
	}
	defer db.Close()
	last, err := db.LastUpdateID(ctx)
	if err != nil || !seed {
		return last, err
	}
	return last, seedTasks(ctx, db, chat)
}

// seedTasks gives an empty chat a few example tasks.
func seedTasks(ctx context.Context, db *storage.DB, chat int64) error {
	have, err := db.ListTasks(ctx, nod.ChatID(chat), nod.TaskFilter{})
	if err != nil || len(have) > 0 {
		return err
	}
	for _, t := range []nod.Task{
		{Title: "Fix login bug", Description: "Safari users are logged out after a minute.", Priority: nod.P3, Labels: []string{"bug"}},
		{Title: "Launch plan", Description: "Everything for the launch of version 2."},
		{Title: "Write release notes", Description: "What changed in version 2, for the blog."},
	} {
		t.ID, t.Status = nod.NewID(), nod.StatusOpen
		if t.Priority == "" {
			t.Priority = nod.P2
		}
		if _, err := db.Apply(ctx, nod.Edit{ChatID: nod.ChatID(chat), UserID: nod.UserID(player), Tool: nod.ToolCreateTask, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
			Mutate: func(*nod.Task) (nod.Task, error) { return t, nil }}); err != nil {
			return fmt.Errorf("seed %q: %w", t.Title, err)
		}
	}
	return nil
}

// now is nod's clock: the real one, moved on by the page's clock control.
func (p *playground) now() time.Time { return time.Now().Add(time.Duration(p.ahead.Load())) }

// chatZone is the player's chat's time zone as nod keeps it.
func (p *playground) chatZone() *time.Location {
	db := storage.New(storage.Options{DSN: p.db}, time.Now, p.log)
	if err := db.Open(context.Background()); err != nil {
		return p.zone
	}
	defer db.Close()
	s, err := db.ChatSettings(context.Background(), nod.ChatID(p.chatID), nod.UserID(player))
	if err != nil {
		return p.zone
	}
	return s.Zone(p.zone)
}

// clock moves nod's clock on: {"by": "hour"} an hour, {"by": "morning"}
// to 08:00 next in the chat's zone. Only forward, as time goes.
func (p *playground) clock(w http.ResponseWriter, r *http.Request) {
	var in struct {
		By string `json:"by"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	now := p.now()
	p.mu.Lock()
	zone := p.shown
	p.mu.Unlock()
	var to time.Time
	switch in.By {
	case "hour":
		to = now.Add(time.Hour)
	case "morning":
		zone = p.chatZone() // read only here: a second handle on nod's database
		to = nod.NextDaily(8, 0, zone, now)
	default:
		http.Error(w, `by is "hour" or "morning"`, http.StatusBadRequest)
		return
	}
	p.ahead.Add(int64(to.Sub(now)))
	p.log.Info("clock moved", "by", in.By, "now", to)
	p.mu.Lock()
	p.shown = zone
	p.bump()
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}
