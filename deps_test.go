package nod_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyBoundaries keeps one package per dependency: only the
// package that wraps a library imports it, and the root package imports
// only the standard library.
func TestDependencyBoundaries(t *testing.T) {
	owners := map[string][]string{
		"github.com/go-telegram/bot":     {"bot"},
		"github.com/openai/openai-go/v3": {"agent", "confidence"},
		"github.com/sergi/go-diff":       {"formatting"},
		"modernc.org/sqlite":             {"storage"},
		"github.com/jackc/pgx/v5":        {"storage"},
		"github.com/pressly/goose/v3":    {"storage"},
		"go.uber.org/fx":                 {"cmd/nod"},
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/nodbot/nod"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		if strings.HasPrefix(pkg, "fixtures") || pkg == "cmd/nodbench" {
			continue // test and bench scaffolding may import what they fake or measure
		}
		for _, imp := range fields[1:] {
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
