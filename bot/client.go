package bot

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// sizedBodies sends every request with its body's length. The library
// streams its multipart form through a pipe, which net/http sends
// chunked, one write to the socket (a system call) per form field; read
// into memory first, a call's body goes out in one.
type sizedBodies struct{ c *http.Client }

func (s sizedBodies) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0 {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.Body, _ = req.GetBody()
		if len(body) == 0 {
			req.Body = http.NoBody
		}
	}
	return s.c.Do(req)
}
