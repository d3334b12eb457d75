package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/cmd/internal/app"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
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
	allowed := p.openTelegram(o, logf)
	if o.db == "" {
		dir, err := os.MkdirTemp("", "nodplay")
		if err != nil {
			return nil, err
		}
		p.tmp, o.db = dir, filepath.Join(dir, "nod.db")
	}
	env := nodEnv(environ, p.tg.URL, o.db, allowed)
	if err := p.openModel(o, env, logf, log); err != nil {
		return nil, err
	}
	p.model = env["NOD_MODEL"]
	if env["NOD_MCP_CONFIG"] == "" {
		nb, err := openNotebook(logf)
		if err != nil {
			return nil, err
		}
		p.notebook, env["NOD_MCP_CONFIG"] = nb, nb.config
	}
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
	if err := p.resume(ctx, o, log); err != nil {
		return nil, err
	}

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return nil, fmt.Errorf("the page's address: %w (choose another with -addr)", err)
	}
	p.addr = ln.Addr().String()
	run, err := p.runNod(ctx, env, nodLog)
	if err != nil {
		ln.Close()
		return nil, err
	}
	p.watchers.Go(func() { p.watch(run) })
	if p.relay != nil {
		p.watchers.Go(func() { p.followCommands(run, p.relay.dir) })
		p.watchers.Go(func() { p.keepChatFile(run, p.relay.dir) })
	}
	p.servePage(ln, o.addr, log)
	ok = true
	return p, nil
}

// resume readies the database and has the stand-in number updates on
// from the last nod handled; the chat of a database the player named is
// kept, and shown as it was.
func (p *playground) resume(ctx context.Context, o options, log *slog.Logger) error {
	lang := o.lang
	if o.model == "tour" { // its script is English, and finds the English tasks
		lang = "en"
	}
	last, err := prepare(ctx, o.db, p.chatID, o.seed, lang, log)
	if err != nil {
		return err
	}
	p.tg.Wire().ContinueAfter(last)
	if p.tmp == "" {
		p.keep = true
		return p.restoreChat()
	}
	return nil
}

// openTelegram starts the Bot API stand-in with the play's chat and its
// people, and returns the users nod allows.
func (p *playground) openTelegram(o options, logf func(format string, args ...any)) (allowed string) {
	p.tg = telegramtest.NewLogged(logf)
	p.chatID = player
	allowed = strconv.FormatInt(player, 10)
	if o.group {
		p.chatID, allowed = group, allowed+","+strconv.FormatInt(bob, 10)
		p.tg.Wire().SetName(player, "Alice")
		p.tg.Wire().SetName(bob, "Bob")
		// Alice made the group, as someone who adds a bot to their family's
		// group did: chat-wide settings (/tz, /daily) are hers to change.
		p.tg.Wire().SetMember(group, player, "creator")
		p.tg.Wire().SetLanguage(bob, o.lang)
	}
	p.tg.Wire().SetLanguage(player, o.lang)
	return allowed
}

// nodEnv is nod's environment: environ with the settings that point nod
// at the stand-in, its database and its allowed users in place of any
// given.
func nodEnv(environ map[string]string, tgURL, db, allowed string) map[string]string {
	env := maps.Clone(environ)
	if env == nil {
		env = map[string]string{}
	}
	for k, v := range map[string]string{
		"TELEGRAM_BOT_TOKEN": telegramtest.Token, "TELEGRAM_API_URL": tgURL,
		"NOD_DB": db, "NOD_ALLOWED_USERS": allowed, "NOD_HTTP_ADDR": "127.0.0.1:0",
	} {
		env[k] = v
	}
	return env
}

// openModel sets env up for the model o names: the tour's fake, an
// endpoint of the operator's, or the relay to whoever plays the model.
func (p *playground) openModel(o options, env map[string]string, logf func(format string, args ...any), log *slog.Logger) error {
	switch o.model {
	case "tour":
		p.tour, p.llm = true, openaitest.NewLogged(logf)
		p.llm.Handle(tour{now: time.Now}.answer)
		env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"] = p.llm.URL, ""
		env["NOD_MODEL"], env["NOD_CLASSIFIER_MODEL"] = tourModel, tourClassifierModel
	case "endpoint":
		if env["OPENAI_BASE_URL"] == "" {
			return errors.New("-model endpoint needs OPENAI_BASE_URL (and NOD_MODEL, OPENAI_API_KEY as nod serve reads them)")
		}
	case "relay":
		rl, err := newRelay(o.relayDir, log, p.changedElsewhere)
		if err != nil {
			return err
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
		return fmt.Errorf("-model %q: want tour, endpoint or relay:DIR", o.model)
	}
	return nil
}

// runNod starts nod serve on env, on the playground's clock, and waits
// until it polls the stand-in. The context it returns ends when nod is
// told to stop.
func (p *playground) runNod(ctx context.Context, env map[string]string, nodLog io.Writer) (context.Context, error) {
	run, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	polls := len(p.tg.Calls("getUpdates"))
	go func() {
		defer close(p.exited)
		p.runErr = app.Run(run, []string{"serve"}, func(k string) string { return env[k] }, nodLog, nodLog,
			app.WithClock(p.now))
	}()
	return run, p.waitPolling(ctx, polls)
}

// servePage serves the page, and the requests it sends, on ln.
func (p *playground) servePage(ln net.Listener, addr string, log *slog.Logger) {
	const jsonType = "application/json"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", p.page)
	mux.HandleFunc("GET /chat", p.chat)
	mux.HandleFunc("POST /send", needs(jsonType, p.send))
	mux.HandleFunc("POST /voice", needs("audio/", p.sendVoice))
	mux.HandleFunc("POST /press", needs(jsonType, p.press))
	mux.HandleFunc("POST /forward", needs(jsonType, p.forward))
	mux.HandleFunc("POST /edit", needs(jsonType, p.editMessage))
	mux.HandleFunc("POST /clock", needs(jsonType, p.clock))
	p.srv = newPageServer(newHosts(addr, p.addr).guard(log, mux))
	go func() {
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("page server", "err", err)
		}
	}()
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
		p.watchers.Wait()
	}
	if p.keep {
		p.keepChat() // what nod sent while it stopped
	}
	if p.llm != nil {
		p.llm.Close()
	}
	if p.tg != nil {
		p.tg.Close()
	}
	if p.notebook != nil {
		p.notebook.close()
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
	seen := -1 // nod's messages to the chat and their edits, when the zone was read
	for {
		_, changed := p.tg.Changes()
		if n := p.botChanges(); n != seen {
			// The chat's zone may have changed with them (a /tz, a tap on
			// a zone's offer): the clock line shows it from now on.
			seen = n
			zone := p.chatZone()
			p.mu.Lock()
			p.shown = zone
			p.mu.Unlock()
		}
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
		if p.keep {
			p.keepChat()
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-timer.C: // typing… has run out
		}
	}
}

// botChanges counts nod's messages to the player's chat and their
// edits: a change of the chat's settings comes with one.
func (p *playground) botChanges() int {
	n := 0
	for _, m := range p.tg.ChatMessages(p.chatID) {
		if m.FromBot {
			n += 1 + m.Edits
		}
	}
	return n
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

// maxText is Telegram's limit on a message the person sends.
const maxText = 4096

// forwardedID is the Telegram id of whoever a forwarded message came from.
const forwardedID = 5005

// maxVoice bounds a recording the page sends: past Telegram's 20 MB for
// bots, nod says it is too big, so a little more must arrive.
const maxVoice = 21 << 20
