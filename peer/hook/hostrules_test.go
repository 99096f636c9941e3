package hook

import "testing"

// TestGeminiShellRule: a tools.allowed entry becomes the gate's
// Bash(PREFIX:*) only when PREFIX is plain words Gemini and the gate read
// alike; anything else is dropped, never widened.
func TestGeminiShellRule(t *testing.T) {
	cases := []struct{ entry, want string }{
		{"run_shell_command(git rebase)", "Bash(git rebase:*)"},
		{"ShellTool(npx create-vite@5 app)", "Bash(npx create-vite@5 app:*)"},
		{"run_shell_command(sudo apt-get update)", "Bash(sudo apt-get update:*)"},
		{"run_shell_command(FOO=1 make)", "Bash(FOO=1 make:*)"},
		{"run_shell_command", ""},
		{"run_shell_command()", ""},
		{"run_shell_command(git *)", ""},
		{"run_shell_command(git rebase:*)", ""},
		{"run_shell_command(git  rebase)", ""},
		{"run_shell_command( git rebase)", ""},
		{"run_shell_command(git\trebase)", ""},
		{"run_shell_command(git commit -m \"x\")", ""},
		{"run_shell_command(rm ~/x)", ""},
		{"run_shell_command(echo $HOME)", ""},
		{"run_shell_command(ls; rm)", ""},
		{"run_shell_command(ls|sh)", ""},
		{"read_file(git rebase)", ""},
		{"Bash(git rebase:*)", ""},
	}
	for _, c := range cases {
		got, ok := geminiShellRule(c.entry)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%q: %q %v, want %q", c.entry, got, ok, c.want)
		}
	}
}
