package nod_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	_ "github.com/nodbot/nod/fixtures/golden" // defines -update, for go test ./... -update
)

// TestDependencyBoundaries keeps each library in the packages that wrap
// it (owners), fx in cmd/internal/app alone, and the root package on the
// standard library only.
func TestDependencyBoundaries(t *testing.T) {
	owners := map[string][]string{
		"github.com/go-telegram/bot":     {"bot"},
		"github.com/openai/openai-go/v3": {"agent", "confidence", "speech"},
		"github.com/sergi/go-diff":       {"formatting"},
		"modernc.org/sqlite":             {"storage"},
		"github.com/jackc/pgx/v5":        {"storage"},
		"github.com/pressly/goose/v3":    {"storage"},
		"go.uber.org/fx":                 {"cmd/internal/app"},
		"github.com/ringsaturn/tzf":      {"place"},
		// Each package that counts something registers its own metrics.
		"github.com/prometheus/client_golang": {"agent", "bot", "confidence", "confirm", "speech", "cmd/internal/app"},
		// The agent's wire format and storage's conversation rows.
		"github.com/go-json-experiment/json": {"agent", "storage"},
		"golang.org/x/time":                  {"bot"},
		"github.com/teambition/rrule-go":     {"repeat"},
		// The MCP SDK: nod's client of an operator's MCP servers.
		"github.com/modelcontextprotocol/go-sdk": {"mcpclient"},
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		scaffolding := strings.HasPrefix(pkg, "fixtures") || pkg == "cmd/nodbench" || pkg == "cmd/nodplay"
		for _, imp := range fields[1:] {
			if scaffolding && !strings.HasPrefix(imp, "go.uber.org/fx") {
				continue // test, bench and playground scaffolding may import what they fake or measure, but fx stays in app
			}
			if pkg == "" && strings.Contains(strings.Split(imp, "/")[0], ".") {
				t.Errorf("the root package imports %s; it must use only the standard library", imp)
			}
			for lib, allowed := range owners {
				if imp != lib && !strings.HasPrefix(imp, lib+"/") {
					continue
				}
				ok := false
				for _, a := range allowed {
					ok = ok || pkg == a || strings.HasPrefix(pkg, a+"/")
				}
				if !ok {
					t.Errorf("%s imports %s; only %v may", pkg, imp, allowed)
				}
			}
		}
	}
}

// TestLayers keeps docs/design.md §1's picture true over full dependency sets (a
// package's imports and theirs): each package may depend on the nod
// packages listed and no other, so that a new edge fails here until
// someone decides it belongs. fixtures, cmd/nodbench and cmd/nodplay are
// scaffolding.
func TestLayers(t *testing.T) {
	allowed := map[string][]string{
		"":           {},
		"answer":     {""},
		"formatting": {"", "answer", "repeat"},
		"storage":    {"", "repeat"},
		"transport":  {},
		"confidence": {"", "transport"},
		"agent":      {"", "answer", "confidence", "repeat", "tools", "transport"},
		// tools is what each task tool's arguments mean and the change they
		// make: the agent reads calls with it, confirm rebuilds stored items.
		"tools": {"", "repeat"},
		// repeat reads a reminder's rule (rrule-go); it knows nothing of tasks.
		"repeat": {},
		// sweep decides what happens on nod's own clock, reaching storage
		// through interfaces of its own (sweep/store.go).
		"sweep": {""},
		// confirm is the person's own changes: the agent reaches it through
		// agent.Answerer, the bot through bot/store.go, and it rebuilds a
		// change with tools, never through the agent's package; it reads
		// the person's answers in words with answer.
		"confirm": {"", "answer", "repeat", "tools"},
		// bot reaches the agent and storage through interfaces of its own
		// (bot/store.go), never through their packages; it renders what
		// sweep reports.
		"bot":   {"", "answer", "formatting", "repeat", "sweep", "transport"},
		"place": {""},
		// mcpclient is nod's client of an operator's MCP servers (go-sdk);
		// the services reach it through interfaces of their own.
		"mcpclient": {""},
		// speech is openai-go's audio client; the bot reaches it through
		// bot.Transcriber.
		"speech": {""},
		// eval plays its cases through the agent on a storage of its own,
		// and reads answers in words as the bot does.
		"cmd/internal/eval": {"", "agent", "answer", "confidence", "confirm", "repeat", "storage", "tools", "transport"},
		"cmd/internal/app":  {"", "agent", "answer", "bot", "confidence", "confirm", "formatting", "mcpclient", "storage", "place", "repeat", "speech", "sweep", "tools", "transport", "cmd/internal/eval"},
		"cmd/nod":           {"", "agent", "answer", "bot", "confidence", "confirm", "formatting", "mcpclient", "storage", "place", "repeat", "speech", "sweep", "tools", "transport", "cmd/internal/app", "cmd/internal/eval"},
	}
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, path := range strings.Fields(string(out)) {
		if path != module && !strings.HasPrefix(path, module+"/") {
			continue
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		if strings.HasPrefix(pkg, "fixtures") || pkg == "cmd/nodbench" || pkg == "cmd/nodplay" || strings.HasPrefix(pkg, "storage/storagetest") {
			continue
		}
		ok, listed := allowed[pkg]
		if !listed {
			t.Errorf("package %q has no entry in the layer table; add one", pkg)
			continue
		}
		deps, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}`, path).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", path, err)
		}
		for _, d := range strings.Fields(string(deps)) {
			if d == path || (d != module && !strings.HasPrefix(d, module+"/")) {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(d, module), "/")
			if !slices.Contains(ok, dep) {
				t.Errorf("%q depends on %q, which its layer may not (deps_test.go's table)", pkg, dep)
			}
		}
	}
}

// TestUpdateFlag keeps `go test ./... -update` working: every package with
// tests imports fixtures/golden, which defines the flag, so that no
// package fails on a flag it does not know.
func TestUpdateFlag(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{len .TestGoFiles}}{{len .XTestGoFiles}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if fields[1] == "00" {
			continue // no tests
		}
		if !slices.Contains(fields[2:], "github.com/nodbot/nod/fixtures/golden") {
			t.Errorf("%s has tests but does not import fixtures/golden: go test ./... -update fails there", fields[0])
		}
	}
}
