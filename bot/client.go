package bot

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// sizedMax bounds the body sizedBodies reads ahead: a call's form is far
// smaller, a file upload (/export) may be far larger.
const sizedMax = 1 << 20

// sizedBodies sends every request of up to sizedMax with its body's
// length. The library streams its multipart form through a pipe, which
// net/http sends chunked, one write to the socket (a system call) per
// form field; read into memory first, a call's body goes out in one. A
// larger body (an uploaded file) goes out as it comes, chunked, after the
// part read ahead: it is never held in memory whole.
type sizedBodies struct{ c *http.Client }

func (s sizedBodies) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0 {
		body, err := io.ReadAll(io.LimitReader(req.Body, sizedMax+1))
		if err != nil {
			req.Body.Close()
			return nil, fmt.Errorf("read request body: %w", err)
		}
		if len(body) > sizedMax {
			req.Body = readCloser{io.MultiReader(bytes.NewReader(body), req.Body), req.Body}
			return s.c.Do(req)
		}
		req.Body.Close()
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.Body, _ = req.GetBody()
		if len(body) == 0 {
			req.Body = http.NoBody
		}
	}
	return s.c.Do(req)
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}
