package nod_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// maxTypeMethods bounds every exported type's method set: a type that
// answers more than this many questions holds several meanings; split it
// by them.
const maxTypeMethods = 30

// maxFuncLines bounds every non-test function's body: past it, a function
// does several things one after another; name them.
const maxFuncLines = 100

// TestTypesStaySmall counts the exported methods in the method set of *T
// for every exported type T of the module (promoted methods included, so
// embedding hides nothing).
func TestTypesStaySmall(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatalf("load packages: %v", err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("packages did not load")
	}
	seen := 0
	for _, p := range pkgs {
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() || tn.IsAlias() {
				continue
			}
			seen++
			typ := tn.Type()
			if _, ok := typ.Underlying().(*types.Interface); !ok {
				typ = types.NewPointer(typ)
			}
			n := exportedMethods(typ)
			full := p.PkgPath + "." + name
			if n > maxTypeMethods {
				t.Errorf("%s has %d methods, want at most %d: split it by meaning", full, n, maxTypeMethods)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no exported types found")
	}
}

// exportedMethods counts the exported methods in typ's method set:
// unexported ones are the type's own business.
func exportedMethods(typ types.Type) int {
	ms := types.NewMethodSet(typ)
	n := 0
	for i := range ms.Len() {
		if ms.At(i).Obj().Exported() {
			n++
		}
	}
	return n
}

// TestFunctionsStayShort bounds the body of every non-test function and
// method of the module.
func TestFunctionsStayShort(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		long, err := longFuncs(path, nil)
		if err != nil {
			return err
		}
		for _, l := range long {
			t.Errorf("%s: %s has a %d-line body, want at most %d", path, l.name, l.lines, maxFuncLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no Go files found")
	}
}

func TestLongFuncs(t *testing.T) {
	body := func(n int) string { return strings.Repeat("\t_ = 0\n", n) }
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		// A body of n lines, braces on their own lines, spans n+2 lines.
		{"at the limit", "package p\nfunc f() {\n" + body(maxFuncLines-2) + "}\n", nil},
		{"one over", "package p\nfunc f() {\n" + body(maxFuncLines-1) + "}\n", []string{"f"}},
		{"method", "package p\ntype T int\nfunc (T) m() {\n" + body(maxFuncLines) + "}\n", []string{"m"}},
		{"literal", "package p\nvar v = func() {\n" + body(maxFuncLines) + "}\n", []string{"func literal"}},
		{"declaration only", "package p\nfunc f()\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			long, err := longFuncs("p.go", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range long {
				got = append(got, l.name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("longFuncs = %v, want %v", got, tc.want)
			}
		})
	}
}

type longFunc struct {
	name  string
	lines int
}

// longFuncs lists the functions of a file (src, or the file at path when
// src is nil) whose body, braces included, spans more than maxFuncLines
// lines.
func longFuncs(path string, src []byte) ([]longFunc, error) {
	var from any // a nil []byte in an interface would read as an empty file
	if src != nil {
		from = src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, from, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var long []longFunc
	check := func(name string, body *ast.BlockStmt) {
		if body == nil {
			return
		}
		lines := fset.Position(body.Rbrace).Line - fset.Position(body.Lbrace).Line + 1
		if lines > maxFuncLines {
			long = append(long, longFunc{name, lines})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			check(n.Name.Name, n.Body)
		case *ast.FuncLit:
			check("func literal", n.Body)
		}
		return true
	})
	return long, nil
}
