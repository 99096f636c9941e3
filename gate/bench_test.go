package gate

import (
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
)

// typicalCalls are what coding agents run most: listings, searches, git
// reads, test runs, builds, and a few file tool calls.
var typicalCalls = []protocol.ToolCall{
	bash("ls -la"), bash("git status"), bash("git diff --stat"), bash("git log --oneline -20"),
	bash("grep -rn 'func main' ."), bash("rg -n Analyze gate/"), bash("cat go.mod"), bash("head -n 50 README.md"),
	bash("go test ./..."), bash("go build ./cmd/perm-peer"), bash("npm run lint"), bash("npm test -- --watch=false"),
	bash("cargo build --release"), bash("find . -name '*.go' | wc -l"), bash("cd src && ls -la"),
	bash("git add -A && git commit -m 'fix: handle nil policy'"), bash("sed -n '1,40p' internal/server.go"),
	bash("python3 -m pytest -q tests/"), bash("make test 2>&1 | tail -20"), bash("docker compose ps"),
	tool("read", map[string]any{"file_path": "/work/app/internal/server.go"}),
	tool("edit", map[string]any{"file_path": "/work/app/internal/server.go", "old_string": "a", "new_string": "b"}),
	tool("grep", map[string]any{"pattern": "TODO", "path": "/work/app"}),
	tool("webfetch", map[string]any{"url": "https://pkg.go.dev/net/http"}),
}

func BenchmarkAnalyze(b *testing.B) {
	pol, err := PolicyFrom(protocol.Policy{
		Allow: []string{"Bash(go test *)", "Bash(npm run lint)", "Read(src/**)", "Write(internal/**)"},
		Ask:   []string{"Bash(git push *)"},
		Deny:  []string{"Bash(rm -rf *)", "Read(~/.ssh/**)", "WebFetch(domain:*.pastebin.com)"},
	}, protocol.Policy{}, "/work/app")
	if err != nil {
		b.Fatal(err)
	}
	e := Env{Project: "/work/app", Home: "/home/dev", Policy: pol,
		Grants: []Grant{{Pattern: "Bash(cargo build *)", By: protocol.ByGrant}, {Pattern: "Bash(make test *)", By: protocol.BySession}}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Analyze(typicalCalls[i%len(typicalCalls)], e)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commands/s")
}
