package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

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
	// notebook is the demo MCP server nod is given (notebook.go), nil when
	// the operator named servers of their own.
	notebook *notebook
	srv      *http.Server
	stop     context.CancelFunc // stops nod and the view
	// exited is closed once nod has returned, with its result in runErr:
	// both a failed start and close wait for it, so it is closed rather
	// than sent on, which only one of them would receive.
	exited chan struct{}
	runErr error
	quit   chan struct{} // closed by close: ends long polls
	// watchers are the goroutines that follow the chat and the relay
	// folder (they write the files kept beside the database): close
	// waits for them before it writes those files a last time.
	watchers sync.WaitGroup
	tmp      string // a temporary directory to remove, if any
	db       string // nod's database, for the chat's time zone
	keep     bool   // the chat is kept beside db, which the player named
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
	Ahead   bool          `json:"ahead"` // the clock control moved it
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

// chatPoll is how long the page's long poll of the chat waits for a change.
const chatPoll = 25 * time.Second

// chat answers the view once it is newer than ?after=, waiting up to
// chatPoll for a change (a long poll).
func (p *playground) chat(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.ParseUint(r.URL.Query().Get("after"), 10, 64)
	timeout := time.NewTimer(chatPoll)
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
		Clock: p.now().In(p.shown).Format("Mon 2 Jan 15:04 MST"), Ahead: p.ahead.Load() != 0}
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
		case m.Document != nil: // a file nod sent (/export): its name, size and caption
			vm.HTML = template.HTMLEscapeString(fmt.Sprintf("📎 %s · %d KB\n%s", m.Document.Name, (len(m.Document.Data)+1023)/1024, m.Document.Caption))
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
