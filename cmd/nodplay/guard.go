package main

import (
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// A running playground sends messages, presses buttons and, on an
// endpoint, spends its key at a request to 127.0.0.1, which any web page
// the person opens could make: a form or a text/plain fetch needs nobody's
// leave, and a DNS name rebound to 127.0.0.1 makes a page elsewhere the
// same origin. So the page answers a request only for its own address
// (Host) from its own page (Origin, when sent), and takes a body only of
// the type its page sends, which a page elsewhere may send only after a
// CORS preflight the playground never grants.

// hosts says which Host headers name the page.
type hosts struct {
	addr  string     // the listening address, for the refusal
	port  string     // the listening port: every Host names it
	names []string   // lower case: localhost, and the name -addr gave
	ip    netip.Addr // the listening IP
	anyIP bool       // a wildcard address: any IP literal names the page
}

// newHosts returns the Hosts of the page asked for at given (-addr) and
// listening at listening (its real port when given asked for :0).
func newHosts(given, listening string) hosts {
	name, _, _ := net.SplitHostPort(given)
	host, port, _ := net.SplitHostPort(listening)
	ip, _ := netip.ParseAddr(host)
	h := hosts{addr: listening, port: port, names: []string{"localhost"}, ip: ip.Unmap(), anyIP: ip.IsUnspecified()}
	if name != "" {
		h.names = append(h.names, strings.ToLower(name))
	}
	return h
}

// ok says whether hostport (a Host header) names the page: loopback,
// localhost, the listening IP or the name -addr gave, at the listening
// port. Any other name may be one an attacker rebound to this machine.
func (h hosts) ok(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), "80" // no port: http's own
	}
	if host == "" || port != h.port {
		return false
	}
	if slices.Contains(h.names, strings.ToLower(host)) {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && (ip.IsLoopback() || ip.Unmap() == h.ip || h.anyIP)
}

// guard answers 403 to a request whose Host, or Origin when sent, is not
// the page's.
func (h hosts) guard(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if !h.ok(r.Host) || origin != "" && !h.sameOrigin(origin) {
			log.Warn("a request not from the page refused", "host", r.Host, "origin", origin, "path", r.URL.Path)
			http.Error(w, "forbidden: the playground answers only its own page, at http://"+h.addr, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin says whether origin (an Origin header) is the page's.
func (h hosts) sameOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Path == "" && h.ok(u.Host)
}

// needs takes a request only with a body of media type want, or of any
// subtype when want ends in "/"; else 415.
func needs(want string, next http.HandlerFunc) http.HandlerFunc {
	anySub := strings.HasSuffix(want, "/")
	shown := want
	if anySub {
		shown += "*"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		typ, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || typ != want && !(anySub && strings.HasPrefix(typ, want)) {
			http.Error(w, "want Content-Type "+shown, http.StatusUnsupportedMediaType)
			return
		}
		next(w, r)
	}
}

// newPageServer bounds what one client may hold of the page: headers are
// small (64 KiB, as a browser's cookies for localhost are every local
// app's), a recording of up to maxVoice is read within ReadTimeout, and
// the chat's long poll is answered well within WriteTimeout.
func newPageServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      chatPoll + 30*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}
