package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// request sends method path with body and headers (a "Host" among them
// replaces the request's) to the page, and returns the status.
func (tp *testPlayground) request(method, path, body string, headers map[string]string) int {
	tp.t.Helper()
	req, err := http.NewRequestWithContext(tp.t.Context(), method, "http://"+tp.addr+path, strings.NewReader(body))
	if err != nil {
		tp.t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tp.t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body) // read whole: a page cut short logs an error
	return resp.StatusCode
}

// Any web page can post to 127.0.0.1: a form or a text/plain fetch
// without asking, anything with a DNS name rebound to loopback. The page
// takes a body only as application/json (which a page elsewhere cannot
// send without the playground's leave) and a request only for its own
// address, from its own page; nothing refused reaches the chat.
func TestPageRefusesOtherSites(t *testing.T) {
	t.Parallel()
	tp := newPlayground(t, nil, options{})
	port := tp.addr[strings.LastIndex(tp.addr, ":")+1:]
	const msg = `{"text": "delete everything"}`
	for _, c := range []struct {
		name, method, path, body string
		headers                  map[string]string
		want                     int
	}{
		{"a text/plain post", "POST", "/send", msg, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"a form", "POST", "/send", "text=hi", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"no type", "POST", "/send", msg, nil, http.StatusUnsupportedMediaType},
		{"a text/plain press", "POST", "/press", `{"message": 1, "data": "x"}`, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"a text/plain forward", "POST", "/forward", `{"from": "Eve", "text": "hi"}`, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"a text/plain edit", "POST", "/edit", `{"message": 1, "text": "hi"}`, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"a text/plain clock", "POST", "/clock", `{"by": "hour"}`, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"a JSON voice", "POST", "/voice?duration=1", `{}`, map[string]string{"Content-Type": "application/json"}, http.StatusUnsupportedMediaType},
		{"another origin", "POST", "/send", msg, map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"another port", "POST", "/send", msg, map[string]string{"Content-Type": "application/json", "Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"a null origin", "POST", "/send", msg, map[string]string{"Content-Type": "application/json", "Origin": "null"}, http.StatusForbidden},
		{"a rebound name", "POST", "/send", msg, map[string]string{"Content-Type": "application/json", "Host": "evil.example:" + port}, http.StatusForbidden},
		{"a rebound name reading", "GET", "/chat?after=0", "", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
		{"a rebound name's page", "GET", "/", "", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
		{"another port's host", "GET", "/chat?after=0", "", map[string]string{"Host": "127.0.0.1:1"}, http.StatusForbidden},
	} {
		if got := tp.request(c.method, c.path, c.body, c.headers); got != c.want {
			t.Errorf("%s: %s %s = %d, want %d", c.name, c.method, c.path, got, c.want)
		}
	}
	if n := len(tp.tg.ChatMessages(player)); n != 0 {
		t.Errorf("refused requests reached the chat: %d messages", n)
	}
	if tp.ahead.Load() != 0 {
		t.Errorf("a refused request moved the clock")
	}
	// The page's own requests, by number or by name, go through.
	for _, h := range []map[string]string{
		{"Content-Type": "application/json", "Origin": "http://" + tp.addr},
		{"Content-Type": "application/json; charset=utf-8", "Host": "localhost:" + port, "Origin": "http://localhost:" + port},
	} {
		if got := tp.request("POST", "/send", `{"text": "hello"}`, h); got != http.StatusNoContent {
			t.Errorf("the page's own post %v: %d, want 204", h, got)
		}
	}
	if got := tp.request("GET", "/", "", map[string]string{"Host": "localhost:" + port}); got != http.StatusOK {
		t.Errorf("the page at localhost: %d, want 200", got)
	}
}

// The page's listener bounds what a client may take: an oversized header
// is refused with 431, and a slow or idle connection is closed in time.
func TestPageLimits(t *testing.T) {
	t.Parallel()
	tp := newPlayground(t, nil, options{})
	srv := tp.srv
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Errorf("the page's limits: header %v, read %v, write %v, idle %v, %d header bytes",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
	if srv.WriteTimeout <= chatPoll {
		t.Errorf("a write timeout of %v cuts the page's long poll of %v", srv.WriteTimeout, chatPoll)
	}
	if got := tp.request("GET", "/", "", map[string]string{"X-Padding": strings.Repeat("x", 256<<10)}); got != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 256 KiB header: %d, want 431", got)
	}
}

// A Host names the page when it is its listening address, loopback at its
// port, or, on a wildcard address, any IP at its port (a phone on the
// LAN); a DNS name other than localhost or the one given is a rebinding.
func TestPageHosts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		given, listening string
		ok, refused      []string
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080",
			[]string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"},
			[]string{"127.0.0.1:8081", "evil.example:8080", "192.168.1.5:8080", "127.0.0.1", "localhost", ""}},
		{"127.0.0.1:0", "127.0.0.1:41234", []string{"127.0.0.1:41234", "localhost:41234"}, []string{"127.0.0.1:0", "localhost:8080"}},
		{":8080", "[::]:8080", []string{"192.168.1.5:8080", "[fe80::1]:8080", "localhost:8080"}, []string{"evil.example:8080", "192.168.1.5:80"}},
		{"nodplay.lan:80", "192.168.1.5:80", []string{"nodplay.lan", "nodplay.lan:80", "192.168.1.5", "localhost"}, []string{"evil.example", "nodplay.lan:8080"}},
	} {
		h := newHosts(c.given, c.listening)
		for _, host := range c.ok {
			if !h.ok(host) {
				t.Errorf("listening on %s as %s: Host %q refused", c.listening, c.given, host)
			}
		}
		for _, host := range c.refused {
			if h.ok(host) {
				t.Errorf("listening on %s as %s: Host %q taken", c.listening, c.given, host)
			}
		}
	}
}
