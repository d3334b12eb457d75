package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// now is nod's clock: the real one, moved on by the page's clock control.
func (p *playground) now() time.Time { return time.Now().Add(time.Duration(p.ahead.Load())) }

// chatZone is the player's chat's time zone as nod keeps it.
func (p *playground) chatZone() *time.Location {
	db := storage.New(storage.Options{DSN: p.db}, time.Now, p.log)
	if err := db.Open(context.Background()); err != nil {
		return p.zone
	}
	defer db.Close()
	s, err := db.Settings().ChatSettings(context.Background(), nod.ChatID(p.chatID), nod.UserID(player))
	if err != nil {
		return p.zone
	}
	return s.Zone(p.zone)
}

// clock moves nod's clock on, as the page's control asks: {"by": "hour"},
// {"by": "morning"} or a step such as {"by": "+11h"} (clockStep).
func (p *playground) clock(w http.ResponseWriter, r *http.Request) {
	act("{by}", func(in struct {
		By string `json:"by"`
	}) error {
		return p.moveClock(in.By)
	})(w, r)
}

// maxClockStep bounds one move of the clock: a month, more than any
// reminder or review a play waits for.
const maxClockStep = 30 * 24 * time.Hour

// clockStep reads a step of the clock: "hour" (the page's ⏩ +1 h), or
// "+N" and a unit, m, h or d ("+90m", "+11h", "+2d"), of at most
// maxClockStep; false for anything else.
func clockStep(by string) (time.Duration, bool) {
	if by == "hour" {
		return time.Hour, true
	}
	num, ok := strings.CutPrefix(by, "+")
	if !ok || len(num) < 2 {
		return 0, false
	}
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[num[len(num)-1]]
	n, err := strconv.Atoi(num[:len(num)-1])
	if unit == 0 || err != nil || n < 1 || strconv.Itoa(n) != num[:len(num)-1] || time.Duration(n) > maxClockStep/unit {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// moveClock moves nod's clock on: a step (clockStep), or "morning" to
// 08:00 next in the chat's zone. Only forward, as time goes.
func (p *playground) moveClock(by string) error {
	now := p.now()
	p.mu.Lock()
	zone := p.shown
	p.mu.Unlock()
	var to time.Time
	if step, ok := clockStep(by); ok {
		to = now.Add(step)
	} else if by == "morning" {
		zone = p.chatZone()
		to = nod.NextDaily(8, 0, zone, now)
	} else {
		return errors.New(`by is "morning", "hour" or +N and m, h or d ("+11h"), at most 30 days`)
	}
	p.ahead.Add(int64(to.Sub(now)))
	p.log.Info("clock moved", "by", by, "now", to)
	p.mu.Lock()
	p.shown = zone
	p.bump()
	p.mu.Unlock()
	return nil
}
