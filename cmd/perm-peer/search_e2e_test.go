package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A recursive search through the binary: in a project holding .env,
// grep -r T= . prints SECRET=… and is a human-only ask; in a project
// without a sensitive file the same search is allowed.
func TestCheckRecursiveSearchScope(t *testing.T) {
	dir := t.TempDir()
	secret, clean, home := filepath.Join(dir, "secret"), filepath.Join(dir, "clean"), filepath.Join(dir, "home")
	for _, d := range []string{secret, clean, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(secret, ".env"), []byte("SECRET=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{secret, clean} {
		if err := os.WriteFile(filepath.Join(p, "main.go"), []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(project string) map[string]any {
		t.Helper()
		cmd := exec.Command(binPath, "check", "--cwd", project, "--json", "--", "grep -r T= .")
		cmd.Dir = project
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "cfg"), "XDG_STATE_HOME="+filepath.Join(home, "state"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("check in %s: %v\n%s", project, err, out)
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("check output: %v\n%s", err, out)
		}
		return v
	}
	if v := check(secret); v["decision"] != "ask" || v["humanOnly"] != true {
		t.Fatalf("grep -r T= . beside .env: %v, want a human-only ask", v)
	}
	if v := check(clean); v["decision"] != "allow" {
		t.Fatalf("grep -r T= . without secrets: %v, want allow", v)
	}
}
