package nod_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxMethods bounds every interface of bot, agent, confirm, sweep and tools: a consumer asks
// for the few methods it uses, grouped by what it does with
// them.
const maxMethods = 8

// TestInterfacesAreSmall keeps the interfaces of bot, agent, confirm, sweep and tools small,
// counting the methods of embedded interfaces of the package too.
func TestInterfacesAreSmall(t *testing.T) {
	for _, dir := range []string{"agent", "bot", "confirm", "sweep", "tools"} {
		t.Run(dir, func(t *testing.T) { interfacesAreSmall(t, dir) })
	}
}

func interfacesAreSmall(t *testing.T, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	ifaces := map[string]*ast.InterfaceType{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					ifaces[ts.Name.Name] = it
				}
			}
			return true
		})
	}
	var count func(it *ast.InterfaceType) int
	count = func(it *ast.InterfaceType) int {
		n := 0
		for _, m := range it.Methods.List {
			if len(m.Names) > 0 {
				n += len(m.Names)
				continue
			}
			id, ok := m.Type.(*ast.Ident)
			if !ok || ifaces[id.Name] == nil {
				t.Errorf("an interface embeds %v, which this test cannot count", m.Type)
				continue
			}
			n += count(ifaces[id.Name])
		}
		return n
	}
	if len(ifaces) == 0 {
		t.Fatal("no interfaces found")
	}
	for name, it := range ifaces {
		if n := count(it); n > maxMethods {
			t.Errorf("interface %s.%s has %d methods, want at most %d: split it by what its consumer does", dir, name, n, maxMethods)
		}
	}
}
