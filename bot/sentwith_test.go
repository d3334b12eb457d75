package bot

import (
	"log/slog"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage/storagetest"
)

// Callback data counts only on a message it was sent with: on a message
// whose buttons nod recorded, only their data counts, whatever Telegram
// says the message carries; on one it has no record of (sent before it
// kept the record, or pruned) the data must be among the buttons Telegram
// reports.
func TestSentWith(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(t, "sqlite", clock.Now)
	b := &Bot{chats: db.Settings(), buttons: db.Messages(), log: slog.New(slog.DiscardHandler)}
	const chat = -500
	b.bindButtons(t.Context(), chat, 5, []string{"1u.mine", "1S.rule"})
	b.bindButtons(t.Context(), chat, 9, []string{"1u.theirs"})
	if err := db.Settings().SetLanguage(t.Context(), chat, "de"); err != nil {
		t.Fatal(err)
	}
	carrying := func(data ...string) *models.InlineKeyboardMarkup {
		kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{}}
		for _, d := range data {
			kb.InlineKeyboard = append(kb.InlineKeyboard, []models.InlineKeyboardButton{{Text: "x", CallbackData: d}})
		}
		return kb
	}
	for _, c := range []struct {
		name           string
		msg            int
		data           string
		kb             *models.InlineKeyboardMarkup
		want, recorded bool
	}{
		{"on its message", 5, "1u.mine", carrying("1u.mine", "1S.rule"), true, true},
		{"on its message, Telegram's copy unknown", 5, "1S.rule", nil, true, true},
		{"on another's receipt", 9, "1u.mine", carrying("1u.theirs"), false, true},
		{"on another message that claims to carry it", 9, "1u.mine", carrying("1u.mine"), false, true},
		{"on a message it was never sent with", 7, "1u.theirs", nil, false, false},
		{"older than the record, on its message", 3, "1u.old", carrying("1u.old"), true, false},
		{"recorded data on a message older than the record", 3, "1u.mine", carrying("1u.old"), false, false},
		{"older than the record, elsewhere", 3, "1u.old", carrying("1u.other"), false, false},
		{"older than the record, inaccessible message", 3, "1u.old", nil, false, false},
	} {
		got := b.pressed(t.Context(), chat, c.msg, c.data, c.kb)
		if got.settings.Language != "de" { // read with the check
			t.Errorf("%s: the chat's settings read %+v", c.name, got.settings)
		}
		if got.err != nil || got.sent != c.want || got.recorded != c.recorded {
			t.Errorf("%s: pressed(%d, %q) = %v, %v, %v; want %v, %v", c.name, c.msg, c.data, got.sent, got.recorded, got.err, c.want, c.recorded)
		}
	}
	if got := b.pressed(t.Context(), chat-1, 5, "1u.mine", nil); got.sent {
		t.Errorf("data of chat %d counts in chat %d", chat, chat-1)
	}
	// Edited into another message, the data counts there as well.
	b.bindButtons(t.Context(), chat, 9, []string{"1u.mine"})
	if got := b.pressed(t.Context(), chat, 9, "1u.mine", nil); !got.sent {
		t.Errorf("data edited into message 9 does not count there")
	}
}
