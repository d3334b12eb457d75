// Package transport makes the HTTP clients nod reaches its endpoints
// with: the model's OpenAI-compatible API and Telegram's Bot API.
package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultMaxConns is how many connections to one host a client keeps
// where its owner sets no number.
const DefaultMaxConns = 256

// Pooled returns a client for one host that keeps up to conns idle
// connections to it: as many as calls run at once (one per chat in a
// turn), or each call beyond the idle pool opens a connection (a TLS
// handshake). timeout bounds a whole call; 0 leaves deadlines to the
// calls' contexts.
func Pooled(conns int, timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = conns, conns
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return pooledCopy{c}, nil
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// pooledCopy is a connection that takes a request body through a pooled
// buffer. net/http writes what of a body does not fit its 4 KiB write
// buffer through the connection's ReadFrom, and a TCP connection's
// copies through a fresh buffer of up to 32 KiB each time: a model's
// request runs to 10–20 KiB, and those buffers were a fifth of all a
// turn allocated. Over TLS the connection net/http writes to is its own
// (and HTTP/2, which such endpoints mostly speak, has buffers of its own).
type pooledCopy struct{ net.Conn }

var copyBuffers = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

// ReadFrom copies r to the connection.
func (c pooledCopy) ReadFrom(r io.Reader) (int64, error) {
	b := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(b)
	return io.CopyBuffer(writerOnly{c.Conn}, r, *b)
}

// writerOnly hides the connection's own ReadFrom from io.CopyBuffer,
// which would otherwise hand the copy back to it.
type writerOnly struct{ io.Writer }
