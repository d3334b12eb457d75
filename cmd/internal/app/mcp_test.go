package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/mcptest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// A NOD_MCP_CONFIG file nod cannot use stops the start with one line that
// names the variable and the server, before any database file exists.
func TestMCPConfigRefused(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "mcp.json")
	for name, tc := range map[string]struct{ body, want string }{
		"missing file": {"", "no such file"},
		"both ways":    {`{"mcpServers": {"files": {"command": "npx", "url": "http://127.0.0.1:1/mcp"}}}`, `server "files": give "command" or "url", not both`},
		"risk word":    {`{"mcpServers": {"files": {"command": "npx", "tools": {"move_file": "dangerous"}}}}`, `server "files": tool "move_file": risk "dangerous"`},
		"unset var":    {`{"mcpServers": {"wiki": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${WIKI_TOKEN}"}}}}`, `server "wiki": headers Authorization: ${WIKI_TOKEN}: the variable is not set`},
	} {
		t.Run(name, func(t *testing.T) {
			os.Remove(conf)
			if tc.body != "" {
				if err := os.WriteFile(conf, []byte(tc.body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env, dir := serveEnv(t, telegramtest.New(t))
			env["NOD_MCP_CONFIG"] = conf
			_, _, err := cli(t, env)
			if err == nil || !strings.Contains(err.Error(), "NOD_MCP_CONFIG") || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("serve with a bad MCP configuration: %v\nwant one line saying %q", err, tc.want)
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("a failed start left %v behind", files)
			}
		})
	}
}

// A server that is down does not stop nod: it starts, connects the one
// that is up (logging its tools), and says once that the other is
// unavailable. ${VAR} in the file comes from nod's environment.
func TestMCPServerDownStillStarts(t *testing.T) {
	up := mcptest.ServeHTTP(t, mcptest.NewNotebook())
	down := mcptest.ServeHTTP(t, mcptest.NewNotebook())
	down.Stop()
	conf := filepath.Join(t.TempDir(), "mcp.json")
	body := `{"mcpServers": {"notebook": {"type": "http", "url": "${NOTEBOOK_URL}"}, "wiki": {"url": "` + down.URL + `"}}}`
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	tg := telegramtest.New(t)
	env, _ := serveEnv(t, tg)
	env["NOD_MCP_CONFIG"], env["NOTEBOOK_URL"] = conf, up.URL
	ctx, cancel := context.WithCancel(t.Context())
	logs := &fixtures.LogBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, func(k string) string { return env[k] }, logs, logs) }()
	tg.Wait("nod to poll and connect the notebook", func() bool {
		return len(tg.Calls("getUpdates")) > 0 && strings.Contains(logs.String(), "server=notebook tools=3")
	})
	tg.Wait("nod to miss the wiki", func() bool { return strings.Contains(logs.String(), "mcp server unavailable") })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, logs)
	}
	for _, want := range []string{`msg="mcp servers configured" component=mcp servers=notebook,wiki`, `msg="mcp server connected" component=mcp server=notebook tools=3`, "server=wiki"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}
