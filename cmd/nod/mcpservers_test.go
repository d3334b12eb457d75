package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures/mcptest"
)

// nod serve connects the operator's MCP servers from NOD_MCP_CONFIG: a
// stdio child (this test binary, TestMain) and one over streamable HTTP
// that is down at start, which does not stop nod and is connected once
// it answers after the backoff, on nod's clock.
func TestMCPServersConnect(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	web := mcptest.ServeHTTP(t, mcptest.NewNotebook())
	web.Stop()
	command, env := mcptest.StdioCommand(t)
	conf := filepath.Join(t.TempDir(), "mcp.json")
	body := `{"mcpServers": {
		"local": {"command": "` + command + `", "env": {"` + mcptest.ChildEnv + `": "` + env[mcptest.ChildEnv] + `"}, "tools": {"list_notes": "read"}},
		"web": {"type": "http", "url": "${WEB_MCP_URL}", "trust_annotations": true}}}`
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env["NOD_MCP_CONFIG"], h.env["WEB_MCP_URL"] = conf, web.URL
	h.start()
	logged := func(s string) func() bool { return func() bool { return strings.Contains(h.logs.String(), s) } }
	h.tg.Wait("the stdio server to connect", logged(`msg="mcp server connected" component=mcp server=local tools=3`))
	h.tg.Wait("the HTTP server to be missed", logged(`msg="mcp server unavailable; retrying in the background" component=mcp server=web`))
	web.Start()
	h.clock.Advance(time.Second)
	h.tg.Wait("the HTTP server to connect", logged(`msg="mcp server connected" component=mcp server=web tools=3`))
	h.stop()
	if n := strings.Count(h.logs.String(), "mcp server unavailable"); n != 1 {
		t.Errorf("the episode is logged %d times:\n%s", n, h.logs)
	}
}
