package gate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Ceilings of the architecture figures of package gate (issue 13). They may
// only go down: lower one when a change beats it. The targets are a biggest
// function of 150 lines, at most 4 functions over 100 lines, at most 90
// analyzer methods and no command-name comparison outside the command
// table and the builtins switch.
const (
	maxFuncLines     = 645 // plain
	maxFuncsOver100  = 17
	maxAnalyzerFuncs = 184
	maxNameCompares  = 496 // lb == "…", lb != "…" and case "…" of switch lb
)

// archFigures are the measured figures.
type archFigures struct {
	biggest      int
	biggestName  string
	over100      []string
	methods      int
	nameCompares int
}

func TestArchitectureCeilings(t *testing.T) {
	fig := measureArch(t)
	t.Logf("biggest function %s: %d lines; %d over 100 lines %v; %d analyzer methods; %d command-name comparisons",
		fig.biggestName, fig.biggest, len(fig.over100), fig.over100, fig.methods, fig.nameCompares)
	check := func(what string, got, ceiling int) {
		t.Helper()
		switch {
		case got > ceiling:
			t.Errorf("%s: %d, over the ceiling %d", what, got, ceiling)
		case got < ceiling:
			t.Logf("%s: %d, below the ceiling %d: lower it in arch_test.go", what, got, ceiling)
		}
	}
	check("biggest function", fig.biggest, maxFuncLines)
	check("functions over 100 lines", len(fig.over100), maxFuncsOver100)
	check("analyzer methods", fig.methods, maxAnalyzerFuncs)
	check("command-name comparisons", fig.nameCompares, maxNameCompares)
}

func measureArch(t *testing.T) archFigures {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var fig archFigures
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > fig.biggest {
				fig.biggest, fig.biggestName = lines, fn.Name.Name
			}
			if lines > 100 {
				fig.over100 = append(fig.over100, fn.Name.Name)
			}
			if isAnalyzerMethod(fn) {
				fig.methods++
			}
		}
		fig.nameCompares += nameCompares(f)
	}
	sort.Strings(fig.over100)
	return fig
}

func isAnalyzerMethod(fn *ast.FuncDecl) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.Name == "analyzer"
}

// nameCompares counts the places that pick on a command name: lb compared
// with a string literal, and each string literal of a case of switch lb.
func nameCompares(f *ast.File) int {
	n := 0
	isLB := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "lb" }
	isStr := func(e ast.Expr) bool { l, ok := e.(*ast.BasicLit); return ok && l.Kind == token.STRING }
	ast.Inspect(f, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.BinaryExpr:
			if (x.Op == token.EQL || x.Op == token.NEQ) && (isLB(x.X) && isStr(x.Y) || isStr(x.X) && isLB(x.Y)) {
				n++
			}
		case *ast.SwitchStmt:
			if x.Tag != nil && isLB(x.Tag) {
				for _, c := range x.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if isStr(e) {
							n++
						}
					}
				}
			}
		}
		return true
	})
	return n
}
