package eval

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nodbot/nod"
)

// notebook stands in for an operator's MCP server in the cases
// (docs/design.md §16): its tools are offered as mcp__notebook__…, with
// the risks a server's configuration gives them, and a call answers at
// once. What the eval measures is what nod does with a call (run it at
// once, or ask), not the server.
type notebook struct{}

// notebookTools are the stand-in's tools.
var notebookTools = []nod.ExternalTool{
	{Name: "mcp__notebook__add_note", Server: "notebook", Tool: "add_note", Description: "Add a note to the notebook.",
		Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`), Risk: nod.Mutating},
	{Name: "mcp__notebook__delete_note", Server: "notebook", Tool: "delete_note", Description: "Delete a note by its id.",
		Schema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`), Risk: nod.Destructive},
	{Name: "mcp__notebook__list_notes", Server: "notebook", Tool: "list_notes", Description: "List the notes.",
		Schema: json.RawMessage(`{"type":"object","properties":{}}`), Risk: nod.ReadOnly},
}

func (notebook) Tools() []nod.ExternalTool { return notebookTools }

func (notebook) Unavailable() []string { return nil }

func (notebook) Call(_ context.Context, name nod.Tool, args json.RawMessage) (nod.ExternalResult, error) {
	return nod.ExternalResult{Text: fmt.Sprintf("%s done with %s", name, args)}, nil
}
