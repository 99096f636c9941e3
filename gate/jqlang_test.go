package gate

import (
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
		u, e := jqUnknownCalls(c.filter)
		assert.Equal(t, c.unknown, u, c.filter)
		assert.Equal(t, c.env, e, c.filter)
	}
}
