package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func plainWords(s string) []word {
	var ws []word
	for _, f := range strings.Fields(s) {
		ws = append(ws, word{val: f})
	}
	return ws
}

func vals(ws []word) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.val)
	}
	return out
}

// readSearch tells patterns from paths and option values the way each
// tool does: values of options are skipped, -e inside a cluster takes the
// rest of the cluster or the next word, GNU long options may be
// abbreviated, the last case option wins.
func TestParseSearch(t *testing.T) {
	cases := []struct {
		lb, args          string
		patterns, paths   []string
		context, fromFile bool
		ignoreCase        bool
		dialect           dialect
	}{
		{lb: "grep", args: "-rn API .", patterns: []string{"API"}, paths: []string{"."}},
		{lb: "grep", args: "-rn -A 3 API .", patterns: []string{"API"}, paths: []string{"."}, context: true},
		{lb: "grep", args: "-rn -A0 API .", patterns: []string{"API"}, paths: []string{"."}},
		{lb: "grep", args: "-rn5 API .", patterns: []string{"API"}, paths: []string{"."}, context: true},
		{lb: "grep", args: "-rn --exclude-dir node_modules API src", patterns: []string{"API"}, paths: []string{"src"}},
		{lb: "grep", args: "-rie API .", patterns: []string{"API"}, paths: []string{"."}, ignoreCase: true},
		{lb: "grep", args: "-rieAPI . lib", patterns: []string{"API"}, paths: []string{".", "lib"}, ignoreCase: true},
		{lb: "grep", args: "-r -e -x -e = .", patterns: []string{"-x", "="}, paths: []string{"."}},
		{lb: "grep", args: "-r --regex== ./", patterns: []string{"="}, paths: []string{"./"}},
		{lb: "grep", args: "-r --ig --no-ignore-c api .", patterns: []string{"api"}, paths: []string{"."}},
		{lb: "grep", args: "-rny api .", patterns: []string{"api"}, paths: []string{"."}, ignoreCase: true},
		{lb: "grep", args: "-r --ext a|b .", patterns: []string{"a|b"}, paths: []string{"."}, dialect: extendedRE},
		{lb: "grep", args: "-rEF x .", patterns: []string{"x"}, paths: []string{"."}, dialect: fixedStrings},
		{lb: "grep", args: "-rf pats.txt .", paths: []string{"."}, fromFile: true},
		{lb: "grep", args: "-rz x .", patterns: []string{"x"}, paths: []string{"."}, context: true},
		{lb: "grep", args: "-r -- -v .", patterns: []string{"-v"}, paths: []string{"."}},
		{lb: "egrep", args: "-r x .", patterns: []string{"x"}, paths: []string{"."}, dialect: extendedRE},
		{lb: "rg", args: "--hidden -g !node_modules -t go API", patterns: []string{"API"}, paths: []string{}, dialect: rustRE},
		{lb: "rg", args: "-uu -ie API src", patterns: []string{"API"}, paths: []string{"src"}, ignoreCase: true, dialect: rustRE},
		{lb: "rg", args: "-i -s API", patterns: []string{"API"}, paths: []string{}, dialect: rustRE},
		{lb: "rg", args: "-U x", patterns: []string{"x"}, paths: []string{}, context: true, dialect: rustRE},
		{lb: "ag", args: "--hid -A 2 x .", patterns: []string{"x"}, paths: []string{"."}, context: true, dialect: perlRE},
	}
	for _, c := range cases {
		t.Run(c.lb+" "+c.args, func(t *testing.T) {
			s := readSearch(cmds.SearchOf(c.lb), plainWords(c.args))
			want := c.patterns
			if want == nil {
				want = []string{}
			}
			assert.Equal(t, want, vals(s.patterns), "patterns")
			assert.Equal(t, c.paths, vals(s.paths), "paths")
			assert.Equal(t, c.context, s.context, "context")
			assert.Equal(t, c.fromFile, s.fromFile, "fromFile")
			assert.Equal(t, c.ignoreCase, s.ignoreCase, "ignoreCase")
			assert.Equal(t, c.dialect, s.dialect, "dialect")
		})
	}
}

// Hidden files are reached by grep -r (unless every --include glob keeps
// the secret files out), rg -. / --hidden / -uu, ag --hidden / -u.
func TestSearchesHidden(t *testing.T) {
	for args, want := range map[string]bool{
		"grep -rn x .": true, "grep -n x f": false, "grep -d recurse x .": true, "grep --directories=recurse x .": true,
		"grep -r --include=*.go x .": false, "grep -r --include=* x .": true, "grep -r --include=.env* x .": true,
		"rg x": false, "rg -u x": false, "rg -uu x": true, "rg -.n x": true, "rg --hidden x": true, "rg --hidden --no-hidden x": false,
		"ag x": false, "ag -u x": true, "ag --hidden x": true,
	} {
		ws := plainWords(args)
		assert.Equal(t, want, readSearch(cmds.SearchOf(ws[0].val), ws[1:]).searchesHidden(), args)
	}
}

// gnuToGo reads GNU basic and extended regexps as grep does.
func TestGNUToGo(t *testing.T) {
	cases := []struct {
		in    string
		basic bool
		want  string
		ok    bool
	}{
		{`a\+b`, true, `a+b`, true},
		{`a+b`, true, `a\+b`, true},
		{`\(x\|y\)`, true, `(x|y)`, true},
		{`(x|y)`, true, `\(x\|y\)`, true},
		{`*a`, true, `\*a`, true},
		{`x\{2\}`, true, `x{2}`, true},
		{`\<export\>`, true, `\bexport\b`, true},
		{`\API`, false, `API`, true},
		{`\w+\s\.`, false, `\w+\s\.`, true},
		{`\(.\)\1`, true, "", false},
		{"\\`a\\'", false, `\Aa\z`, true},
	}
	for _, c := range cases {
		got, ok := gnuToGo(c.in, c.basic)
		assert.Equal(t, c.ok, ok, c.in)
		if c.ok {
			assert.Equal(t, c.want, got, c.in)
		}
	}
}

// A recursive search of regular files reads only them: no hidden file
// beside them reaches its output; nor does a search of a directory that
// holds no sensitive file. A directory holding .env, a link to one, a
// missing name, or a call that could swap the file first stays human-only.
func TestRecursiveSearchOfFiles(t *testing.T) {
	proj := t.TempDir()
	for _, f := range []string{"docker-compose.yml", "README.md", ".env", "src/a.go"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(proj, f), []byte("x"), 0o644))
	}
	require.NoError(t, os.Symlink(".", filepath.Join(proj, "lnk.yml")))
	e := Env{Project: proj, Home: "/home/u"}
	cases := []struct {
		cmd   string
		human bool
	}{
		{"grep -rni redis docker-compose.yml", false},
		{"grep -rn 'postgres://' docker-compose.yml | head", false},
		{"grep -rn token README.md docker-compose.yml", false},
		{"grep -rn KEY lnk.yml", true},
		{"grep -rn KEY .env", true},
		{"grep -rn KEY README.md src", false}, // src holds no sensitive file
		{"grep -rn KEY README.md .", true},
		{"grep -rn KEY missing.yml", true},
		{"rm README.md; ln -s . README.md; grep -rn KEY README.md", true},
		{"grep -rn KEY README.md & ln -sf . x", true},
		{"python x.py; grep -rn KEY README.md", true},
	}
	for _, c := range cases {
		v := Analyze(bash(c.cmd), e)
		assert.Equal(t, c.human, v.HumanOnly, c.cmd)
		if !c.human {
			assert.Equal(t, protocol.DecisionAllow, v.Decision, c.cmd)
		}
	}
}
