package bot

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
)

// Each kind of origin Telegram names says whose words a forward carries,
// in the chat's zone.
func TestForwardedFrom(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ origin, want string }{
		{`{"type":"user","date":1764000000,"sender_user":{"id":7007,"is_bot":false,"first_name":"Boss"}}`, "Boss (7007), 2025-11-24 17:00"},
		{`{"type":"hidden_user","date":1764000000,"sender_user_name":"Anna <b>K</b>"}`, "a person who hides their account “Anna <b>K</b>”, 2025-11-24 17:00"},
		{`{"type":"chat","date":1764000000,"sender_chat":{"id":-5,"type":"group","title":"Ops"}}`, "the group “Ops”, 2025-11-24 17:00"},
		{`{"type":"channel","date":1764000000,"chat":{"id":-9,"type":"channel","title":""},"message_id":3}`, "the channel, 2025-11-24 17:00"},
	} {
		var o models.MessageOrigin
		if err := json.Unmarshal([]byte(c.origin), &o); err != nil {
			t.Fatal(err)
		}
		if got := forwardedFrom(&o, berlin); got != c.want {
			t.Errorf("%s: %q, want %q", c.origin, got, c.want)
		}
	}
	if got := forwardedFrom(nil, berlin); got != "" {
		t.Errorf("not forwarded: %q", got)
	}
}
