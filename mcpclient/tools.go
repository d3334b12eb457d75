package mcpclient

import (
	"encoding/json"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nodbot/nod"
)

// risk decides a tool's risk (docs/design.md §15): the entry's "tools"
// map, else the annotations: readOnlyHint is read only when the entry
// trusts annotations (else mutate), destructiveHint explicitly false is
// mutate, anything else destroy (the MCP default).
func risk(s Server, t *mcp.Tool) nod.Risk {
	if r, ok := s.Tools[t.Name]; ok {
		return r
	}
	a := t.Annotations
	switch {
	case a == nil:
		return nod.Destructive
	case a.ReadOnlyHint && s.TrustAnnotations:
		return nod.ReadOnly
	case a.ReadOnlyHint:
		return nod.Mutating
	case a.DestructiveHint != nil && !*a.DestructiveHint:
		return nod.Mutating
	}
	return nod.Destructive
}

// functionName is the OpenAI function name rule; a tool whose full name
// breaks it is left out, never renamed.
var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// toolName is the name the agent sees a server's tool by, and whether the
// model API takes it.
func toolName(server, tool string) (nod.Tool, bool) {
	name := nod.ExternalPrefix + server + "__" + tool
	return nod.Tool(name), functionName.MatchString(name)
}

// emptySchema is the schema of a tool that declares none.
var emptySchema = json.RawMessage(`{"properties":{},"type":"object"}`)

// cleanSchema makes a tool's input schema one the OpenAI function-calling
// API accepts: an object schema at the top (no anyOf, oneOf, allOf, not
// or enum there), no $schema or $id anywhere; properties, required, types
// and descriptions stay.
func cleanSchema(in any) json.RawMessage {
	var m map[string]any
	raw, err := json.Marshal(in)
	if err != nil || json.Unmarshal(raw, &m) != nil || m == nil {
		return emptySchema
	}
	m = dropIDs(m).(map[string]any)
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "enum", "const"} {
		delete(m, k)
	}
	m["type"] = "object"
	if p, ok := m["properties"].(map[string]any); !ok || p == nil {
		m["properties"] = map[string]any{}
	}
	if r, ok := m["required"]; ok {
		if _, list := r.([]any); !list {
			delete(m, "required")
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return emptySchema
	}
	return out
}

// dropIDs removes $schema and $id at every level of a schema.
func dropIDs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "$schema")
		delete(v, "$id")
		for k, x := range v {
			v[k] = dropIDs(x)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = dropIDs(x)
		}
		return v
	}
	return v
}
