package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	_ "github.com/nodbot/nod/fixtures/golden" // defines -update, for go test ./... -update
)

// echoServer answers each request with its body's length, its hash and
// how it was framed.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%d %x %d %v", len(body), sha256.Sum256(body), r.ContentLength, r.TransferEncoding)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func post(t testing.TB, c *http.Client, url string, body []byte) string {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// Bodies of every size arrive whole and framed by their length, those
// larger than the pooled buffer and sent one after another on one
// connection included.
func TestBodiesArriveWhole(t *testing.T) {
	srv := echoServer(t)
	c := Pooled(2, 0)
	for _, n := range []int{0, 1, 4 << 10, 20 << 10, 32 << 10, 100 << 10, 3} {
		body := bytes.Repeat([]byte("nod "), n/4+1)[:n]
		want := fmt.Sprintf("%d %x %d []", n, sha256.Sum256(body), n)
		if got := post(t, c, srv.URL, body); got != want {
			t.Errorf("a body of %d bytes arrived as %q, want %q", n, got, want)
		}
	}
}

// A body larger than net/http's write buffer costs no buffer of its own:
// net/http as it comes allocates one of 32 KiB for each body of 100 KiB,
// a Pooled client at least 12 KiB less per request (under the race
// detector sync.Pool drops a quarter of what is put back, by design).
func TestLargeBodiesCopyThroughPool(t *testing.T) {
	srv := echoServer(t)
	plain := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(plain.CloseIdleConnections)
	body := []byte(strings.Repeat("x", 100<<10))
	perRequest := func(c *http.Client) float64 {
		post(t, c, srv.URL, body) // the connection, dialled once
		const n = 200
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			post(t, c, srv.URL, body)
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / n
	}
	pooled, asIs := perRequest(Pooled(2, 0)), perRequest(&http.Client{Transport: plain})
	t.Logf("bytes allocated per request, client and server: %.0f pooled, %.0f as net/http comes", pooled, asIs)
	if asIs-pooled < 12<<10 {
		t.Errorf("a Pooled client allocated %.0f bytes per request against %.0f: want at least 12 KiB less", pooled, asIs)
	}
}
