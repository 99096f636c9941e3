package scripts

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJqUnknownCalls(t *testing.T) {
	cases := []struct {
		filter  string
		unknown []string
		env     bool
	}{
		{".", nil, false},
		{".[] | select(.age > 30) | .name", nil, false},
		{"{name, version}", nil, false},              // shorthand keys
		{"{name: .n, env: .e, (.k): 1}", nil, false}, // keys, not calls
		{".env", nil, false},                         // a field
		{"map(.x) | add / length", nil, false},
		{`"\(.a) and \(.b | ascii_upcase)"`, nil, false},
		{`"env is \(env.HOME)"`, []string{"env"}, false}, // code inside interpolation
		{"def f(g; $x): g + $x; f(.a; 1)", nil, false},
		{"reduce .[] as $x (0; . + $x)", nil, false},
		{"$__loc__", nil, false},
		{"@base64d | @sh", nil, false},
		{"1.5e3 + 2", nil, false},
		{"# env\n.a", nil, false},
		{"$ENV.PATH", nil, true},
		{"env.AWS_SECRET", []string{"env"}, false},
		{"{a: env}", []string{"env"}, false},
		{`load_props(".env")`, []string{"load_props"}, false},
		{`.a | strload("x")`, []string{"strload"}, false},
		{`load_xml("x") , load("y")`, []string{"load_xml", "load"}, false},
		{`eval("lo" + "ad(\".env\")")`, []string{"eval"}, false},
		{"input_filename", []string{"input_filename"}, false},
		{"get_search_list", []string{"get_search_list"}, false},
		{"@unknownfmt", []string{"@unknownfmt"}, false},
		{"mod::fn", []string{"mod::fn"}, false},
	}
	for _, c := range cases {
		u, e := JqUnknownCalls(c.filter)
		assert.Equal(t, c.unknown, u, c.filter)
		assert.Equal(t, c.env, e, c.filter)
	}
}

func TestJqFiles(t *testing.T) {
	assert.Equal(t, []string{".env", "x.xml"}, JqLoads(`load_props(".env") | load_xml( "x.xml")`))
	assert.Nil(t, JqLoads(`.load`))
	assert.True(t, JqImports(`import "lib" as l; l::f`))
	assert.False(t, JqImports(`.import`))
	assert.Equal(t, []string{"~/.jq/m.jq", "~/.jq/m/m.jq", "~/.jq/m.json", "~/.jq/m/m.json"}, JqModulePaths(nil, `include "m"; .`))
	assert.Equal(t, []string{"lib/a/b.jq", "lib/a/b/b.jq", "lib/a/b.json", "lib/a/b/b.json",
		"vendor/a/b.jq", "vendor/a/b/b.jq", "vendor/a/b.json", "vendor/a/b/b.json"},
		JqModulePaths([]string{"lib"}, `import "a/b" as x {search: "vendor"}; .`))
	assert.True(t, YqDataFile("conf/app.YAML"))
	assert.False(t, YqDataFile(".a.b"))
}

// TestJqPatternsCompile compiles every pattern built on first use.
func TestJqPatternsCompile(t *testing.T) {
	for i, re := range []func() *regexp.Regexp{yqFileName, jqLoadRe, jqImportRe, jqSearchRe} {
		assert.NotNil(t, re(), "pattern %d", i)
	}
}

// FuzzJq: the filter reader never panics, and every unknown call it
// reports is a name the filter holds.
func FuzzJq(f *testing.F) {
	for _, s := range []string{".[] | select(.a)", `"\(env.HOME)"`, "def f($x): $x; f(1)", `load("x") | @sh`, "{a: env, b}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, filter string) {
		unknown, _ := JqUnknownCalls(filter)
		_ = JqModulePaths(nil, filter)
		for _, u := range unknown {
			if !strings.Contains(filter, strings.TrimPrefix(u, "@")) {
				t.Fatalf("%q: unknown call %q is not in the filter", filter, u)
			}
		}
	})
}
