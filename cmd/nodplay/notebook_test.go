package main

import (
	"os"
	"strings"
	"testing"
)

// The playground gives nod its demo notebook as an MCP server over
// streamable HTTP, which nod connects with its three tools; closing the
// playground stops it and removes its configuration. An operator's own
// NOD_MCP_CONFIG replaces it.
func TestPlaygroundNotebook(t *testing.T) {
	t.Parallel()
	var config string
	t.Run("notebook", func(t *testing.T) { // its cleanup closes the playground
		tp := newPlayground(t, nil, options{})
		tp.tg.Wait("nod to connect the notebook", func() bool {
			return strings.Contains(tp.logs.String(), `msg="mcp server connected" component=mcp server=notebook tools=3`)
		})
		config = tp.notebook.config
	})
	if _, err := os.Stat(config); !os.IsNotExist(err) {
		t.Errorf("the notebook's configuration outlives the playground: %v", err)
	}

	own := writeFile(t, `{"mcpServers": {}}`)
	tp := newPlayground(t, map[string]string{"NOD_MCP_CONFIG": own, "NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000"}, options{})
	if tp.notebook != nil || strings.Contains(tp.logs.String(), "server=notebook") {
		t.Errorf("the notebook is started beside the operator's servers")
	}
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "mcp-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(body); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
