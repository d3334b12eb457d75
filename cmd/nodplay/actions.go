package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod/fixtures/telegramtest"
)

// checkText trims what the person typed and checks it is a message
// Telegram would send.
func checkText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" || len([]rune(text)) > maxText {
		return "", errors.New("a message is 1 to 4096 characters")
	}
	return text, nil
}

// act is a page action: it decodes the JSON body into In (shape names
// its fields for the error) and does it; 204 when done, 400 with why not.
func act[In any](shape string, do func(in In) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in In
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil {
			http.Error(w, "want JSON "+shape, http.StatusBadRequest)
			return
		}
		if err := do(in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// send sends text as the person: {text, reply_to}.
func (p *playground) send(w http.ResponseWriter, r *http.Request) {
	act("{text, reply_to}", func(in struct {
		Text    string `json:"text"`
		ReplyTo int    `json:"reply_to"`
	}) error {
		return p.say(in.Text, in.ReplyTo)
	})(w, r)
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
	act("{from, text}", func(in struct {
		From string `json:"from"`
		Text string `json:"text"`
	}) error {
		if strings.TrimSpace(in.From) == "" {
			return errors.New("want JSON {from, text}: from names who wrote the message")
		}
		return p.forwardAs(player, strings.TrimSpace(in.From), in.Text)
	})(w, r)
}

// editMessage edits one of the person's messages: {message, text}.
func (p *playground) editMessage(w http.ResponseWriter, r *http.Request) {
	act("{message, text}", func(in struct {
		Message int    `json:"message"`
		Text    string `json:"text"`
	}) error {
		return p.edit(in.Message, in.Text)
	})(w, r)
}

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

// sendVoice sends the page's recording (the body, of its audio/ type;
// ?duration= seconds, ?reply_to=) as the person's voice message, which
// nod fetches and transcribes as it would one from Telegram.
func (p *playground) sendVoice(w http.ResponseWriter, r *http.Request) {
	if !p.voice {
		http.Error(w, "no speech-to-text endpoint: set NOD_TRANSCRIBE_URL, or play with -model endpoint", http.StatusNotFound)
		return
	}
	seconds, err1 := strconv.Atoi(r.URL.Query().Get("duration"))
	replyTo, err2 := strconv.Atoi(cmp.Or(r.URL.Query().Get("reply_to"), "0"))
	typ, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")) // an audio/ type: needs checked it
	if err := errors.Join(err1, err2); err != nil || seconds < 0 {
		http.Error(w, "want ?duration=SECONDS and ?reply_to=ID", http.StatusBadRequest)
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
