package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/nodbot/nod/formatting"
)

// A relay folder also carries the chat, so that a second player or a
// script can play the person without the browser:
//
//	commands.txt  appended to, one command a line, each run once:
//	              say TEXT · reply MSGID TEXT · press MSGID BUTTON ·
//	              clock +Nm, +Nh or +Nd (at most 30 days) · clock morning
//	              (BUTTON is the button's text, or its start: "✓ 1");
//	              in a group play, "as bob " before one makes Bob do it
//	              (Alice otherwise)
//	commands.log  what each command did, or why it failed
//	chat.txt      the chat as the person sees it, rewritten on every change
const commandPoll = 100 * time.Millisecond

// followCommands runs the lines appended to dir/commands.txt until ctx is
// done; a line counts once it ends in a newline.
func (p *playground) followCommands(ctx context.Context, dir string) {
	path := filepath.Join(dir, "commands.txt")
	tick := time.NewTicker(commandPoll)
	defer tick.Stop()
	var done int
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) <= done {
			continue
		}
		fresh := data[done:]
		end := bytes.LastIndexByte(fresh, '\n')
		if end < 0 {
			continue
		}
		done += end + 1
		for _, line := range strings.Split(string(fresh[:end]), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			outcome := "ok"
			if err := p.command(line); err != nil {
				outcome = "error: " + err.Error()
			}
			appendLine(filepath.Join(dir, "commands.log"), fmt.Sprintf("%s → %s", line, outcome))
		}
	}
}

// command runs one line of commands.txt.
func (p *playground) command(line string) error {
	user := int64(player)
	if rest, ok := strings.CutPrefix(line, "as "); ok {
		name, cmd, _ := strings.Cut(rest, " ")
		id, known := members[strings.ToLower(name)]
		if !known || p.chatID != group {
			return fmt.Errorf("%q is no member of this play (as works in a -group play: alice, bob)", name)
		}
		user, line = id, cmd
	}
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "say":
		return p.sayAs(user, rest, 0)
	case "forward":
		from, text, ok := strings.Cut(rest, ": ")
		if !ok || strings.TrimSpace(from) == "" {
			return errors.New("want forward NAME: TEXT")
		}
		return p.forwardAs(user, strings.TrimSpace(from), text)
	case "clock":
		by := strings.TrimSpace(rest)
		if _, ok := clockStep(by); (!ok || by == "hour") && by != "morning" {
			return errors.New("want clock +Nm, +Nh or +Nd (at most 30 days: +90m, +11h, +2d) or clock morning")
		}
		return p.moveClock(by)
	case "reply", "press", "edit":
		idText, arg, _ := strings.Cut(rest, " ")
		id, err := strconv.Atoi(idText)
		if err != nil || arg == "" {
			return fmt.Errorf("want %s MSGID %s", verb, map[string]string{"reply": "TEXT", "press": "BUTTON", "edit": "TEXT"}[verb])
		}
		switch verb {
		case "reply":
			return p.sayAs(user, arg, id)
		case "edit":
			return p.edit(id, arg)
		}
		return p.pressLabel(user, id, arg)
	}
	return fmt.Errorf("unknown command %q: say, reply, forward, edit, press or clock", verb)
}

// pressLabel presses, as user, the button of message id whose text is
// label, or starts with it, the button's leading emoji aside ("Undo"
// presses "↩️ Undo", as a person reading the buttons would name it).
func (p *playground) pressLabel(user int64, id int, label string) error {
	for _, m := range p.tg.ChatMessages(p.chatID) {
		if m.ID != id {
			continue
		}
		if b, ok := m.Button(label); ok {
			p.pressAs(user, id, b.Data)
			return nil
		}
		var labels []string
		for _, b := range m.Buttons() {
			if label != "" && !notWord([]rune(label)[0]) && strings.HasPrefix(strings.TrimLeftFunc(b.Text, notWord), label) {
				p.pressAs(user, id, b.Data)
				return nil
			}
			labels = append(labels, b.Text)
		}
		return fmt.Errorf("message %d has no button %q; it has %q", id, label, labels)
	}
	return fmt.Errorf("no message %d", id)
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// keepChatFile rewrites dir/chat.txt whenever the view changes.
func (p *playground) keepChatFile(ctx context.Context, dir string) {
	path := filepath.Join(dir, "chat.txt")
	for {
		p.mu.Lock()
		changed := p.changed
		p.mu.Unlock()
		if err := writeAtomic(path, []byte(chatText(p.view()))); err != nil && !errors.Is(err, os.ErrNotExist) {
			p.log.Warn("chat file", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

var struck = regexp.MustCompile(`</?(s|strike|del)>`)

// plainText is a message's HTML as chat.txt shows it: what a person reads,
// with struck-through text marked ~~so~~, since a phone shows it struck
// and the words mean the opposite without it.
func plainText(h string) string { return formatting.PlainText(struck.ReplaceAllString(h, "~~")) }

// chatText is the chat as plain text: who said what, buttons in brackets,
// then what is going on (typing, waiting for the model, the last notice).
func chatText(v view) string {
	var b strings.Builder
	for _, m := range v.Msgs {
		who, arrow := "you", "›"
		if m.From != "" {
			who = m.From
		}
		if m.Bot {
			who, arrow = "nod", "‹"
		}
		head := fmt.Sprintf("%s (%d)", who, m.ID)
		if m.ReplyTo > 0 {
			head += fmt.Sprintf(" ↩ %d", m.ReplyTo)
		}
		if m.Edited {
			head += " (edited)"
		}
		if m.Forwarded != "" {
			head += " (forwarded from " + m.Forwarded + ")"
		}
		text := plainText(m.HTML)
		indent := strings.Repeat(" ", len([]rune(head))+3)
		fmt.Fprintf(&b, "%s %s %s\n", head, arrow, strings.ReplaceAll(text, "\n", "\n"+indent))
		for _, row := range m.Buttons {
			b.WriteString(indent)
			for _, btn := range row {
				fmt.Fprintf(&b, "[%s] ", btn.Text)
			}
			b.WriteString("\n")
		}
	}
	if v.Typing {
		b.WriteString("· nod is typing…\n")
	}
	if v.Waiting != "" {
		b.WriteString("· " + v.Waiting + "\n")
	}
	if v.Notice != nil {
		fmt.Fprintf(&b, "· notice %d: %s\n", v.Notice.Seq, v.Notice.Text)
	}
	if v.Ahead {
		b.WriteString("· nod's clock, moved on: " + v.Clock + "\n")
	}
	return b.String()
}

// notWord is what a button's text may start with before its words: an
// emoji, its variation selector, a space.
func notWord(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
