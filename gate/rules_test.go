package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true},
		{"*", "anything at all", true},
		{"git *", "git status", true},
		{"git *", "git", false},
		{"git * --force", "git push origin --force", true},
		{"*.pastebin.com", "a.b.pastebin.com", true},
		{"*.pastebin.com", "pastebin.com", false},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
		{"abc", "abcd", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, globMatch(c.pat, c.s), "%q ~ %q", c.pat, c.s)
	}
}

func TestRuleMatchCmd(t *testing.T) {
	cases := []struct {
		rule, line  string
		restrictive bool
		want        bool
	}{
		{"Bash(git add *)", "git add", false, true},
		{"Bash(git add *)", "git add -A", false, true},
		{"Bash(git add *)", "git addx", false, false},
		{"Bash(git add:*)", "git add -A", false, true},
		{"Bash(git add:*)", "git addx", false, false},
		{"Bash(rm)", "rm -rf build", true, true},
		{"Bash(rm)", "rm -rf build", false, false},
		{"Bash(rm)", "rmdir x", true, false},
		{"Bash(npm run lint)", "npm run lint", false, true},
		{"Bash(npm run lint)", "npm run lint --fix", false, false},
		{"Bash(*)", "anything", false, true},
		{"Bash", "anything", false, true},
		{"Bash(git   push   *)", "git push origin", true, true},
	}
	for _, c := range cases {
		r, err := parseRule(c.rule)
		require.NoError(t, err, c.rule)
		assert.Equal(t, c.want, r.matchCmd(c.line, c.restrictive), "%s ~ %q (restrictive %v)", c.rule, c.line, c.restrictive)
	}
}

func TestParseRule(t *testing.T) {
	cases := []struct {
		in   string
		kind ruleKind
		err  string
	}{
		{"Bash(go test *)", ruleBash, ""},
		{"bash(ls)", ruleBash, ""},
		{"Read(src/**)", ruleRead, ""},
		{"Write(~/notes/*.md)", ruleWrite, ""},
		{"Edit(src/**)", ruleWrite, ""},
		{"WebFetch(domain:*.example.com)", ruleFetch, ""},
		{"WebFetch", ruleFetch, ""},
		{"Tool(mcp__gh__*)", ruleTool, ""},
		{"mcp__github__list_issues", ruleTool, ""},
		{"Grep", ruleTool, ""},
		{"Bash()", 0, "empty Bash pattern"},
		{"Read()", 0, "empty path glob"},
		{"Read([)", 0, "invalid glob"},
		{"WebFetch(url:x)", 0, "domain:"},
		{"Tool()", 0, "Tool takes a tool name"},
		{"Run(x)", 0, "unknown rule kind"},
		{"Bash(ls", 0, "want Bash(PATTERN)"},
		{"two words", 0, "want Bash(PATTERN)"},
	}
	for _, c := range cases {
		r, err := parseRule(c.in)
		if c.err != "" {
			require.Error(t, err, c.in)
			assert.Contains(t, err.Error(), c.err)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.kind, r.kind, c.in)
	}
}

func TestMatchPath(t *testing.T) {
	cases := []struct {
		rule, path  string
		restrictive bool
		want        bool
	}{
		{"Read(src/**)", "/repo/src/a/b.go", false, true},
		{"Read(src/**)", "/repo/src", false, true},
		{"Read(src/**)", "/repo/srcx/a.go", false, false},
		{"Read(~/notes/**)", "/home/u/notes/x.md", false, true},
		{"Read(/etc/hosts)", "/etc/hosts", false, true},
		{"Read(docs)", "/repo/docs/a.md", false, true},
		{"Read(SRC/**)", "/repo/src/a.go", false, false},
		{"Read(SRC/**)", "/repo/src/a.go", true, true},
	}
	for _, c := range cases {
		r, err := parseRule(c.rule)
		require.NoError(t, err)
		assert.Equal(t, c.want, r.matchPath(c.path, "/repo", "/home/u", c.restrictive), "%s ~ %s", c.rule, c.path)
	}
}

func TestSedScriptSafe(t *testing.T) {
	cases := []struct {
		script string
		safe   bool
	}{
		{"1,20p", true},
		{"s/foo/bar/g", true},
		{"/func main/,/^}/p", true},
		{"$!N;s/\\n/ /", true},
		{"s|a|b|2", true},
		{"/x/{p;q}", true},
		{"s/a\\/b/c/", true},
		{"y/abc/xyz/", true},
		{"10q", true},
		{"w out.txt", false},
		{"/x/{w out.txt", false},
		{"s/a/b/w out", false},
		{"s/a/b/e", false},
		{"1e id", false},
		{"r /etc/passwd", false},
		{"\\%x%w out", false},
		{"s/a/b", false},
		{"k", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.safe, sedScriptSafe(c.script), c.script)
	}
}

func TestAwkProgramSafe(t *testing.T) {
	cases := []struct {
		prog string
		safe bool
	}{
		{"{print $1}", true},
		{"NR>=10 && NR<=20", true},
		{"$1 == \"a\" || $2 > 3 {print}", true},
		{"{if ($3 > 5) print $1}", true},
		{"{print \"a > b | c\"}", true},
		{"{sum+=$3} END {print sum}", true},
		{"{print > \"out.txt\"}", false},
		{"{print $1 >> \"log\"}", false},
		{"{print | \"sh\"}", false},
		{"BEGIN{system(\"id\")}", false},
		{"{\"date\" | getline d}", false},
		{"BEGIN{for(k in ENVIRON) print k}", false},
		{"BEGIN{s=\"/inet/tcp/0/h/1\"}", false},
		{"/\"/ {system(\"id\")} /\"/", false},
		{"# \"\n{print $0 > \"x\"} # \"", false},
		{"/\"/ {print $1} /\"/", true},
		{"{print $1/2}", true},
		{"{print \"unterminated}", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.safe, awkProgramSafe(c.prog), c.prog)
	}
}
