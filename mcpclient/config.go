package mcpclient

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/nodbot/nod"
)

// Config is the operator's MCP servers, by name (NOD_MCP_CONFIG's file).
type Config struct {
	Servers map[string]Server
}

// Server is one server's entry: a stdio command or a streamable HTTP URL.
type Server struct {
	Command string
	Args    []string
	Env     map[string]string // the child's environment, besides PATH and HOME
	URL     string
	Headers map[string]string
	// Tools decides a tool's risk by its name on the server; a tool it
	// does not name is judged by its annotations (risk).
	Tools map[string]nod.Risk
	// TrustAnnotations lets a readOnlyHint make a tool read-only.
	TrustAnnotations bool
}

// entry is a server entry as the file holds it. Keys other clients write
// ("type", "timeout", …) are ignored; "disabled": true skips the entry.
type entry struct {
	Command          string            `json:"command"`
	Args             []string          `json:"args"`
	Env              map[string]string `json:"env"`
	URL              string            `json:"url"`
	Headers          map[string]string `json:"headers"`
	Tools            map[string]string `json:"tools"`
	TrustAnnotations bool              `json:"trust_annotations"`
	Disabled         bool              `json:"disabled"`
}

// riskWords are the words a "tools" entry may use.
var riskWords = map[string]nod.Risk{"read": nod.ReadOnly, "mutate": nod.Mutating, "destroy": nod.Destructive}

// serverName is what a server's name may be: mcp__NAME__TOOL must read
// back unambiguously, so no "__" inside and no "_" at either end.
var serverName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// maxServerName leaves room for "mcp__NAME__" and a tool's name within
// the model API's 64 characters.
const maxServerName = 64 - len(nod.ExternalPrefix) - len("__") - 8

// Load reads the configuration file at path: {"mcpServers": {"NAME":
// {...}}}. ${VAR} and ${VAR:-default} in a command, its args, env
// values, a URL and headers are read from the process's environment.
func Load(path string) (Config, error) { return LoadEnv(path, os.Getenv) }

// LoadEnv is Load with ${VAR} read through getenv, where an empty value
// counts as unset.
func LoadEnv(path string, getenv func(string) string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("MCP configuration: %w", err)
	}
	cfg, err := parse(data, func(k string) (string, bool) { v := getenv(k); return v, v != "" })
	if err != nil {
		return Config{}, fmt.Errorf("MCP configuration %s: %w", path, err)
	}
	return cfg, nil
}

func parse(data []byte, lookup func(string) (string, bool)) (Config, error) {
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return Config{}, fmt.Errorf("not JSON of the form {\"mcpServers\": {...}}: %w", err)
	}
	if file.Servers == nil {
		return Config{}, fmt.Errorf(`no "mcpServers" object`)
	}
	cfg := Config{Servers: map[string]Server{}}
	names := make([]string, 0, len(file.Servers))
	for name := range file.Servers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s, skip, err := parseServer(name, file.Servers[name], lookup)
		if err != nil {
			return Config{}, fmt.Errorf("server %q: %w", name, err)
		}
		if !skip {
			cfg.Servers[name] = s
		}
	}
	return cfg, nil
}

func parseServer(name string, raw json.RawMessage, lookup func(string) (string, bool)) (Server, bool, error) {
	switch {
	case !serverName.MatchString(name):
		return Server{}, false, fmt.Errorf("a name may hold only A-Z a-z 0-9 _ - (the model sees mcp__NAME__TOOL)")
	case strings.Contains(name, "__") || strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_"):
		return Server{}, false, fmt.Errorf(`a name may not hold "__" or start or end with "_" (the model sees mcp__NAME__TOOL)`)
	case len(name) > maxServerName:
		return Server{}, false, fmt.Errorf("a name may be at most %d characters long", maxServerName)
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Server{}, false, fmt.Errorf("not a server entry: %w", err)
	}
	if e.Disabled {
		return Server{}, true, nil
	}
	switch {
	case e.Command == "" && e.URL == "":
		return Server{}, false, fmt.Errorf(`give "command" (a stdio server) or "url" (streamable HTTP)`)
	case e.Command != "" && e.URL != "":
		return Server{}, false, fmt.Errorf(`give "command" or "url", not both`)
	}
	s := Server{Args: e.Args, TrustAnnotations: e.TrustAnnotations}
	var err error
	x := func(field, v string) string {
		if err != nil {
			return ""
		}
		var out string
		out, err = expand(v, lookup)
		if err != nil {
			err = fmt.Errorf("%s: %w", field, err)
		}
		return out
	}
	s.Command = x("command", e.Command)
	s.URL = x("url", e.URL)
	if e.Args != nil {
		s.Args = make([]string, len(e.Args))
		for i, a := range e.Args {
			s.Args[i] = x("args", a)
		}
	}
	s.Env = expandMap(e.Env, "env", x)
	s.Headers = expandMap(e.Headers, "headers", x)
	if err != nil {
		return Server{}, false, err
	}
	if s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
		return Server{}, false, fmt.Errorf("url %q is not an http:// or https:// URL", s.URL)
	}
	if len(e.Tools) > 0 {
		s.Tools = make(map[string]nod.Risk, len(e.Tools))
		for tool, word := range e.Tools {
			r, ok := riskWords[word]
			if !ok {
				return Server{}, false, fmt.Errorf(`tool %q: risk %q is not "read", "mutate" or "destroy"`, tool, word)
			}
			s.Tools[tool] = r
		}
	}
	return s, false, nil
}

func expandMap(m map[string]string, field string, x func(field, v string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x(field+" "+k, v)
	}
	return out
}

// expand replaces ${VAR} and ${VAR:-default} in s from nod's environment;
// a variable that is unset or empty and has no default is an error. A "$" not
// followed by "{" stays as it is (passwords hold them).
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("%q opens ${ without closing }", s)
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		v, ok := lookup(name)
		switch {
		case ok && v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("${%s}: the variable is not set", name)
		}
		s = s[i+end+1:]
	}
}
