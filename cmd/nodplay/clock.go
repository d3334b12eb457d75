package main

import (
	"context"
	"errors"
	"net/http"
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

// clock moves nod's clock on, as the page's control asks: {"by": "hour"}
// or {"by": "morning"}.
func (p *playground) clock(w http.ResponseWriter, r *http.Request) {
	act("{by}", func(in struct {
		By string `json:"by"`
	}) error {
		return p.moveClock(in.By)
	})(w, r)
}

// moveClock moves nod's clock on: "hour" an hour, "morning" to 08:00 next
// in the chat's zone. Only forward, as time goes.
func (p *playground) moveClock(by string) error {
	now := p.now()
	p.mu.Lock()
	zone := p.shown
	p.mu.Unlock()
	var to time.Time
	switch by {
	case "hour":
		to = now.Add(time.Hour)
	case "morning":
		zone = p.chatZone() // read only here: a second handle on nod's database
		to = nod.NextDaily(8, 0, zone, now)
	default:
		return errors.New(`by is "hour" or "morning"`)
	}
	p.ahead.Add(int64(to.Sub(now)))
	p.log.Info("clock moved", "by", by, "now", to)
	p.mu.Lock()
	p.shown = zone
	p.bump()
	p.mu.Unlock()
	return nil
}
