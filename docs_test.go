package nod_test

import (
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/nodbot/nod"

// modulePackages lists the module's packages, the root as "", with the nod
// packages each imports directly (tests excluded).
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		var uses []string
		for _, imp := range fields[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				uses = append(uses, relative(imp))
			}
		}
		slices.Sort(uses)
		pkgs[relative(fields[0])] = uses
	}
	return pkgs
}

func relative(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, module), "/") }

var (
	backticked = regexp.MustCompile("`([^`\n]+)`")
	fenced     = regexp.MustCompile("(?s)```.*?```")
)

// tableRows returns the rows of the first Markdown table after heading in
// file, each as its cells.
func tableRows(t *testing.T, file, heading string) [][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", file, heading)
	}
	var rows [][]string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		t.Fatalf("%s has no table under %q", file, heading)
	}
	return rows[1:] // the header
}

// named reads a cell's package names: `nod` is the root package, "".
func named(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		name := m[1]
		if name == "nod" {
			name = ""
		}
		out = append(out, name)
	}
	return out
}

// TestDesignShapeIsTheCode keeps docs/design.md §1's table true: one row
// per package of the product (scaffolding aside), and the nod packages
// each row says it uses are the ones its code imports.
func TestDesignShapeIsTheCode(t *testing.T) {
	pkgs := modulePackages(t)
	seen := map[string]bool{}
	for _, row := range tableRows(t, "docs/design.md", "## 1. Shape") {
		if len(row) != 3 {
			t.Errorf("§1 row %q: want 3 cells (package, holds, uses)", row)
			continue
		}
		name := named(row[0])
		if len(name) != 1 {
			t.Errorf("§1 row %q names %d packages; one per row", row[0], len(name))
			continue
		}
		pkg := name[0]
		seen[pkg] = true
		uses, ok := pkgs[pkg]
		if !ok {
			t.Errorf("§1 names package %q, which does not exist", pkg)
			continue
		}
		said := named(row[2])
		slices.Sort(said)
		if !slices.Equal(said, uses) {
			t.Errorf("§1 says %q uses %q; its code imports %q", pkg, said, uses)
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		if !seen[pkg] && !scaffolding(pkg) {
			t.Errorf("package %q has no row in docs/design.md §1", pkg)
		}
	}
}

// scaffolding is what tests, benches and the playground are built from:
// docs/architecture.md lists it, design.md's shape does not.
func scaffolding(pkg string) bool {
	return strings.HasPrefix(pkg, "fixtures") || strings.HasPrefix(pkg, "storage/storagetest") ||
		pkg == "cmd/nodbench" || pkg == "cmd/nodplay" || pkg == "cmd/internal/eval"
}

// TestArchitectureLayoutIsTheCode keeps docs/architecture.md's layout
// true: every package sits under a row, and every row's path exists.
func TestArchitectureLayoutIsTheCode(t *testing.T) {
	pkgs := modulePackages(t)
	var paths []string
	for _, row := range tableRows(t, "docs/architecture.md", "## Layout") {
		name := backticked.FindStringSubmatch(row[0])
		if name == nil {
			t.Errorf("layout row %q names no path", row[0])
			continue
		}
		path := name[1]
		if path == "*.go" {
			path = ""
		} else if _, err := os.Stat(path); err != nil {
			t.Errorf("docs/architecture.md's layout names %s: %v", path, err)
		}
		paths = append(paths, path)
	}
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		covered := slices.ContainsFunc(paths, func(p string) bool {
			return p == pkg || p != "" && strings.HasPrefix(pkg, p+"/")
		})
		if !covered {
			t.Errorf("package %q is under no row of docs/architecture.md's layout", pkg)
		}
	}
}

// TestDocsNameFilesThatExist keeps the paths the documents name true: a
// file moved or renamed takes its mentions with it.
func TestDocsNameFilesThatExist(t *testing.T) {
	path := regexp.MustCompile(`^[a-z][a-z0-9_./-]*/[a-z0-9_.-]+\.(go|tmpl|md|sh|json|sql)$`)
	// What running nod takes sits at the root, named without a folder:
	// its image, compose file and settings.
	rootFile := regexp.MustCompile(`^(Containerfile|[a-z]+\.yaml|\.env\.example)$`)
	for _, doc := range []string{"README.md", "PLAYTEST.md", "CHANGELOG.md", "docs/design.md", "docs/architecture.md", "docs/performance.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range backticked.FindAllStringSubmatch(fenced.ReplaceAllString(string(b), ""), -1) {
			name, _, _ := strings.Cut(m[1], " ") // "bot/message.go onText"
			if !path.MatchString(name) && !rootFile.MatchString(name) || strings.ContainsAny(name, "*<>") {
				continue
			}
			if _, err := os.Stat(name); err != nil {
				t.Errorf("%s names %s, which does not exist", doc, name)
			}
		}
	}
}
