package mcpclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodbot/nod"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A file as other clients write it loads: their extra keys are ignored,
// a disabled server is skipped, ${VAR} comes from nod's environment.
func TestLoad(t *testing.T) {
	t.Setenv("NOTES_TOKEN", "s3cret")
	t.Setenv("NOTES_DIR", "/srv/notes")
	path := writeConfig(t, `{"mcpServers": {
		"files": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${NOTES_DIR}"],
			"env": {"LOG": "${NOTES_LOG:-quiet}", "DOLLAR": "pa$$word"}, "timeout": 30,
			"tools": {"read_file": "read", "write_file": "mutate", "move_file": "destroy"}},
		"notebook": {"type": "http", "url": "http://127.0.0.1:8931/mcp", "headers": {"Authorization": "Bearer ${NOTES_TOKEN}"}, "trust_annotations": true},
		"old": {"command": "old-server", "disabled": true}
	}, "otherClientSetting": 1}`)
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Servers: map[string]Server{
		"files": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv/notes"},
			Env:   map[string]string{"LOG": "quiet", "DOLLAR": "pa$$word"},
			Tools: map[string]nod.Risk{"read_file": nod.ReadOnly, "write_file": nod.Mutating, "move_file": nod.Destructive}},
		"notebook": {URL: "http://127.0.0.1:8931/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}, TrustAnnotations: true},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Load (-want +got):\n%s", d)
	}
}

// Each mistake is refused with a line that names the server and says
// what to write instead.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not json", `{"mcpServers": `, "not JSON"},
		{"no servers object", `{"servers": {}}`, `no "mcpServers" object`},
		{"neither", `{"mcpServers": {"files": {"args": ["x"]}}}`, `server "files": give "command" (a stdio server) or "url"`},
		{"both", `{"mcpServers": {"files": {"command": "x", "url": "http://h/mcp"}}}`, `server "files": give "command" or "url", not both`},
		{"risk word", `{"mcpServers": {"files": {"command": "x", "tools": {"write_file": "write"}}}}`, `server "files": tool "write_file": risk "write" is not "read", "mutate" or "destroy"`},
		{"name with a dot", `{"mcpServers": {"my.files": {"command": "x"}}}`, `server "my.files": a name may hold only A-Z a-z 0-9 _ -`},
		{"name with __", `{"mcpServers": {"my__files": {"command": "x"}}}`, `server "my__files": a name may not hold "__"`},
		{"name ending in _", `{"mcpServers": {"files_": {"command": "x"}}}`, `server "files_": a name may not hold "__" or start or end with "_"`},
		{"unset variable", `{"mcpServers": {"files": {"command": "x", "env": {"KEY": "${NOD_TEST_UNSET_VAR}"}}}}`, `server "files": env KEY: ${NOD_TEST_UNSET_VAR}: the variable is not set`},
		{"not a url", `{"mcpServers": {"web": {"url": "ftp://h/mcp"}}}`, `server "web": url "ftp://h/mcp" is not an http:// or https:// URL`},
		{"entry not an object", `{"mcpServers": {"files": "npx"}}`, `server "files": not a server entry`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, tc.body)
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load took %s", tc.body)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load: %v\nwant it to name %s and say %q", err, path, tc.want)
			}
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.Contains(err.Error(), "MCP configuration") || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok && v != "" }
	for in, want := range map[string]string{
		"plain":            "plain",
		"${A}":             "1",
		"x${A}y${A}":       "x1y1",
		"${EMPTY:-d}":      "d",
		"${MISSING:-d e}":  "d e",
		"$A and $$ stay":   "$A and $$ stay",
		"${A:-unused} end": "1 end",
	} {
		got, err := expand(in, lookup)
		if err != nil || got != want {
			t.Errorf("expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"${MISSING}", "${A"} {
		if got, err := expand(in, lookup); err == nil {
			t.Errorf("expand(%q) = %q, want an error", in, got)
		}
	}
}
