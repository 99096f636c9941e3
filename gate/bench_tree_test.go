//go:build unix

package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

// projectCommands are bench/harness's typical mix, run in a project on
// disk: the recursive searches among them walk their scope.
var projectCommands = []string{
	"git status", "ls -la", "cat README.md", "git diff HEAD~1 -- src/", "grep -rn TODO src",
	"go test ./...", "npm run lint", "find . -name '*.go' -type f", "rg -n 'func main' --type go",
	"git log --oneline -20", "head -50 src/main.go", "wc -l src/*.go", "make build",
	"go build ./... && go vet ./...", "cat package.json | jq .scripts", "echo hello > out.txt",
	"rm -rf build/", "python3 -m pytest tests/ -q", "sed -n '1,80p' src/app.go", "rm -rf /",
}

// projectTree makes a project of 3 directories of 10 files each, a README
// and a .git directory, last changed an hour ago as a session's project is.
func projectTree(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	old := time.Now().Add(-time.Hour)
	var dirs []string
	for _, d := range []string{"src", "src/internal", "docs", ".git"} {
		dir := filepath.Join(root, d)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		for i := range 10 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte("package x // TODO\n"), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		dirs = append(dirs, dir)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("# x\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	for _, d := range append(dirs, filepath.Join(root, "src"), root) {
		if err := os.Chtimes(d, old, old); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// BenchmarkAnalyzeProject is gate.Analyze over the typical mix in a
// project on disk, each directory listing read from the disk and, as the
// long-lived peer passes it, through a DirCache. calls/cpu-s is the rate
// one core sustains by the process's CPU time (user and system), which
// the other load of a shared machine does not change the way it does the
// wall clock.
func BenchmarkAnalyzeProject(b *testing.B) {
	root := projectTree(b)
	created := time.Now()
	pol, err := PolicyFrom(protocol.Policy{}, protocol.Policy{}, root)
	if err != nil {
		b.Fatal(err)
	}
	calls := make([]protocol.ToolCall, len(projectCommands))
	for i, c := range projectCommands {
		calls[i] = bash(c)
	}
	// a listing is kept once its directory's ctime is racyWindow old
	time.Sleep(time.Until(created.Add(racyWindow + 100*time.Millisecond)))
	for _, bc := range []struct {
		name string
		dirs *DirCache
	}{{"disk", nil}, {"cached", NewDirCache()}} {
		b.Run(bc.name, func(b *testing.B) {
			e := Env{Project: root, Cwd: root, Home: root + "/home", Policy: pol, Dirs: bc.dirs}
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				Analyze(calls[i%len(calls)], e)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/(cpuTime(b)-cpu0).Seconds(), "calls/cpu-s")
		})
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
