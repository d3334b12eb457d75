package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/mcptest"
)

// notebook is a demo MCP server the playground gives nod, so that the
// agent is offered tools of someone else's (mcp__notebook__list_notes,
// add_note, delete_note) as an operator's MCP servers would be: a
// notebook over streamable HTTP on loopback, named in a configuration
// file of its own.
type notebook struct {
	book   *mcptest.Notebook
	http   *mcptest.HTTP
	dir    string
	config string // the NOD_MCP_CONFIG file
}

// openNotebook serves the notebook and writes the file that names it.
// Its annotations are trusted: list_notes reads at once, add_note is a
// change, delete_note always asks.
func openNotebook(logf func(format string, args ...any)) (*notebook, error) {
	book := mcptest.NewNotebook()
	n := &notebook{book: book, http: mcptest.ServeHTTP(fixtures.Logged(logf), book)}
	dir, err := os.MkdirTemp("", "nodplay-mcp")
	if err != nil {
		n.http.Stop()
		return nil, err
	}
	n.dir, n.config = dir, filepath.Join(dir, "mcp.json")
	body, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"notebook": map[string]any{"url": n.http.URL, "trust_annotations": true}}})
	if err == nil {
		err = os.WriteFile(n.config, body, 0o600)
	}
	if err != nil {
		n.close()
		return nil, fmt.Errorf("the demo notebook's configuration: %w", err)
	}
	return n, nil
}

func (n *notebook) close() {
	n.http.Stop()
	os.RemoveAll(n.dir)
}
