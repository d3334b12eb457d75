package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// healthTimeout bounds one `nod healthcheck`: /healthz answers at once, so
// a nod that takes longer is as good as down, and the container engine's
// own timeout should not be what ends the check.
const healthTimeout = 3 * time.Second

// healthcheck asks the nod serving on NOD_HTTP_ADDR (or -http-addr) for
// /healthz and returns nil if it answers 200. It needs no shell or curl,
// so that an image with nothing but nod can run it as its HEALTHCHECK.
// It reads only the listener's address: a check must not fail over a
// setting that serve has already accepted.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	def := "127.0.0.1:9090"
	for _, s := range settings {
		if s.env == "NOD_HTTP_ADDR" {
			def = s.def
		}
	}
	if v := getenv("NOD_HTTP_ADDR"); v != "" {
		def = v
	}
	fs := flag.NewFlagSet("nod healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http-addr", def, "the address nod serve listens on (NOD_HTTP_ADDR); a wildcard such as :9090 is asked on 127.0.0.1")
	timeout := fs.Duration("timeout", healthTimeout, "how long to wait for the answer")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "nod healthcheck [-http-addr host:port] [-timeout duration]: exit 0 if the nod on NOD_HTTP_ADDR answers /healthz with 200, else 1")
		fs.PrintDefaults()
	}
	if isHelp(args) {
		fs.SetOutput(stdout)
		fs.Usage()
		return flag.ErrHelp
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: `nod help healthcheck` lists its flags", fs.Args())
	}
	u, err := healthURL(*addr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	// No proxy: the check is about this machine's nod, whatever
	// HTTP_PROXY the container carries for Telegram and the model.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("unhealthy: %s gave no answer within %v", u, *timeout)
		}
		return fmt.Errorf("unhealthy: no answer from %s (%v): is nod serve running, listening on NOD_HTTP_ADDR %s?", u, err, *addr)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: %s answered %s", u, resp.Status)
	}
	fmt.Fprintf(stdout, "healthy: %s answered %s\n", u, resp.Status)
	return nil
}

// healthURL is where to ask a nod that listens on addr. A wildcard host
// (":9090", "0.0.0.0:9090", "[::]:9090") listens on loopback too, and
// 127.0.0.1 answers even where IPv6 is off: Go's "tcp" listener on "::"
// is dual-stack, or IPv4 alone where there is no IPv6.
func healthURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("NOD_HTTP_ADDR %q is not host:port, such as 127.0.0.1:9090 or :9090", addr)
	}
	if port == "" || port == "0" {
		return "", fmt.Errorf("NOD_HTTP_ADDR %s lets nod pick a free port, which nod healthcheck cannot know: give it a fixed port", addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}
