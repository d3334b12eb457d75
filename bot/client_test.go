package bot

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A call's small body goes out with its length; a body past sizedMax (an
// uploaded file) goes out as it comes, chunked, whole, and is never read
// whole before the request leaves: the server sees its first bytes while
// the sender still holds back the rest.
func TestSizedBodies(t *testing.T) {
	type got struct {
		length int64
		body   []byte
	}
	seen := make(chan got, 1)
	firstBytes := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		head := make([]byte, 10)
		io.ReadFull(r.Body, head)
		if r.ContentLength < 0 {
			close(firstBytes)
		}
		rest, _ := io.ReadAll(r.Body)
		seen <- got{r.ContentLength, append(head, rest...)}
	}))
	defer srv.Close()
	c := sizedBodies{srv.Client()}

	small := "chat_id=1&text=hello"
	req, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader(small)))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if g := <-seen; g.length != int64(len(small)) || string(g.body) != small {
		t.Errorf("a small body went with length %d: %q", g.length, g.body)
	}

	big := bytes.Repeat([]byte("0123456789"), sizedMax/10+1000)
	pr, pw := io.Pipe()
	go func() {
		pw.Write(big[:sizedMax+10])
		<-firstBytes // the rest only once the server has read the start
		pw.Write(big[sizedMax+10:])
		pw.Close()
	}()
	req, _ = http.NewRequest(http.MethodPost, srv.URL, pr)
	go func() {
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case g := <-seen:
		if g.length != -1 || !bytes.Equal(g.body, big) {
			t.Errorf("a large body went with length %d, %d of %d bytes intact", g.length, len(g.body), len(big))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a large body was held back until it was read whole")
	}
}
