package bot

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures"
)

// The waits after polls answered early with nothing double from 100 ms
// to a second; updates, or an empty answer held for half the timeout
// asked or more, end them.
func TestIdleWait(t *testing.T) {
	t.Parallel()
	const asked = 29 * time.Second
	ms := time.Millisecond
	// A server that answers at once, every time.
	var got []time.Duration
	wait := time.Duration(0)
	for range 7 {
		wait = idleWait(wait, 0, 2*ms, asked)
		got = append(got, wait)
	}
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second, time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("waits of a server that never holds = %v, want %v", got, want)
	}
	for _, c := range []struct {
		name        string
		prev        time.Duration
		n           int
		took, asked time.Duration
		want        time.Duration
	}{
		{"updates, at once", 800 * ms, 3, 2 * ms, asked, 0},
		{"held the full timeout", 800 * ms, 0, asked, asked, 0},
		{"held half of it", 400 * ms, 0, asked / 2, asked, 0},
		{"held under half of it", 400 * ms, 0, asked/2 - ms, asked, 800 * ms},
		{"first early answer", 0, 0, 5 * time.Second, asked, 100 * ms},
		{"no holding asked for", 0, 0, 0, 0, 100 * ms},
		{"no holding asked for, updates", 200 * ms, 1, 0, 0, 0},
	} {
		if got := idleWait(c.prev, c.n, c.took, c.asked); got != c.want {
			t.Errorf("%s: idleWait(%v, %d, %v, %v) = %v, want %v", c.name, c.prev, c.n, c.took, c.asked, got, c.want)
		}
	}
}

// An episode of early empty answers is logged where it starts and where it
// ends, not at every poll.
func TestPaceLogsOncePerEpisode(t *testing.T) {
	t.Parallel()
	logs := &fixtures.LogBuffer{}
	b := &Bot{opts: Options{PollTimeout: 30 * time.Second}, log: slog.New(slog.NewTextHandler(logs, nil))}
	var p idlePacer
	for _, n := range []int{0, 0, 0, 0, 0, 2, 0, 0, 0} {
		b.pace(&p, n, time.Millisecond)
	}
	if n := strings.Count(logs.String(), "answered at once with nothing"); n != 2 {
		t.Errorf("%d lines of episodes starting, want 2:\n%s", n, logs)
	}
	if n := strings.Count(logs.String(), "polling at once"); n != 1 || !strings.Contains(logs.String(), "early_answers=5") {
		t.Errorf("%d lines of an episode ending, want 1 with its 5 answers:\n%s", n, logs)
	}
	if p.wait != 400*time.Millisecond || p.early != 3 {
		t.Errorf("after 3 early answers: wait %v, %d early, want 400ms, 3", p.wait, p.early)
	}
}

// What can be read of a press whose update does not decode is read field
// by field: its id is enough to answer it.
func TestReadPress(t *testing.T) {
	t.Parallel()
	const msg = `"message":{"message_id":1,"date":1,"chat":{"id":100,"type":"private"}}`
	for _, c := range []struct {
		name string
		raw  string
		want unreadPress
		ok   bool
	}{
		{"all of it", `{"update_id":7,"callback_query":{"id":"q1","from":{"id":42,"language_code":"de"},` + msg + `,"chat_instance":5}}`,
			unreadPress{id: "q1", user: 42, lang: "de", chat: 100}, true},
		{"sender unreadable", `{"update_id":7,"callback_query":{"id":"q1","from":{"id":"42"},` + msg + `}}`,
			unreadPress{id: "q1", chat: 100}, true},
		{"no message", `{"update_id":7,"callback_query":{"id":"q1","from":{"id":42},"inline_message_id":"x"}}`,
			unreadPress{id: "q1", user: 42}, true},
		{"message unreadable", `{"update_id":7,"callback_query":{"id":"q1","from":{"id":42},"message":{"chat":{"id":"100"}}}}`,
			unreadPress{id: "q1", user: 42}, true},
		{"id not a string", `{"update_id":7,"callback_query":{"id":5,"from":{"id":42}}}`, unreadPress{}, false},
		{"no id", `{"update_id":7,"callback_query":{"from":{"id":42}}}`, unreadPress{}, false},
		{"a message", `{"update_id":7,"message":{"message_id":1}}`, unreadPress{}, false},
		{"not JSON", `{"update_id":7,"callback_query":`, unreadPress{}, false},
	} {
		got, ok := readPress([]byte(c.raw))
		if got != c.want || ok != c.ok {
			t.Errorf("%s: readPress = %+v, %v, want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
