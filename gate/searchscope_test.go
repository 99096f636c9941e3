package gate

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testPEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"

// secretProject is a project holding .env, a key, a credentials file and
// a link to a key in a temporary home, beside a source file.
func secretProject(t *testing.T) Env {
	t.Helper()
	dir := t.TempDir()
	proj, home := filepath.Join(dir, "p"), filepath.Join(dir, "h")
	writeFile(t, proj, ".env", "SECRET=hunter2\n")
	writeFile(t, proj, "certs/server.key", testPEM)
	writeFile(t, proj, "gcp-credentials.json", `{"private_key_id": "abc"}`+"\n")
	writeFile(t, proj, "src/main.go", "package main // TODO\n")
	key := writeFile(t, home, ".ssh/id_rsa", "sshkey\n")
	require.NoError(t, os.Symlink(key, filepath.Join(proj, "link.txt")))
	return Env{Project: proj, Cwd: proj, Home: home}
}

// A recursive search whose scope holds a sensitive file it reads prints
// that file's matching lines: human-only, whatever the pattern looks like,
// unless it is a fixed string none of those files holds. Which files the
// tool reaches decides: grep -r reads hidden files, rg and ag only with
// --hidden; grep -R and rg -L follow links; --include narrows.
func TestRecursiveSearchScope(t *testing.T) {
	e := secretProject(t)
	cases := []struct {
		cmd   string
		human bool
	}{
		{"grep -r 'T=' .", true}, // .env: SECRET=hunter2
		{"grep -r MII .", true},  // the key's body
		{"grep -rE '^[A-Za-z0-9+/]{20,}$' .", true},
		{"grep -r hunter .", true},
		{"grep -ri HUNTER .", true},
		{"grep -r T.D. .", true}, // a regexp: not checked against the files
		{"grep -rv zzz .", true},
		{"grep -rn TODO .", false},
		{"grep -rni todo .", false},
		{"grep -rF 'a.b' .", false},
		{"grep -rl hunter .", false}, // names only
		{"grep -rc hunter .", false},
		{"grep -r hunter src", false},
		{"grep -r --include='*.go' hunter .", false},
		{"grep -r --include='*.key' MII .", true},
		{"grep -r sshkey .", false}, // -r does not follow link.txt
		{"grep -R sshkey .", true},
		{"grep -r --dereference-recursive sshkey .", true},
		{"rg MII", true},
		{"rg private_key", true},
		{"rg hunter", false}, // rg skips .env
		{"rg --hidden hunter", true},
		{"rg -uu hunter", true},
		{"rg -i todo", false},
		{"rg zzz", false},
		{"rg --passthru zzz", true}, // every line of the key file
		{"rg --hidden --passthru zzz", true},
		{"rg sshkey .", false},
		{"rg -L sshkey .", true},
		{"rg --follow sshkey .", true},
		{"ag MII", true},
		{"ag hunter", false},
		{"ack hunter", true},      // ack reads hidden files
		{"ack -s secret .", true}, // -s hushes errors: smart case still finds SECRET=
		{"ack -f .", false},       // lists the files, prints no line
		{"ag -f TODO .", false},   // -f is --follow: link.txt's key holds no TODO
		{"ag -f sshkey .", true},  // and link.txt's key is read
	}
	for _, c := range cases {
		v := Analyze(bash(c.cmd), e)
		assert.Equal(t, c.human, v.HumanOnly, c.cmd)
		if c.human {
			assert.Equal(t, protocol.DecisionAsk, v.Decision, c.cmd)
		} else {
			assert.Equal(t, protocol.DecisionAllow, v.Decision, c.cmd)
		}
	}
}

// A project without sensitive files sees no ask for a search, even one
// whose pattern the no-files heuristic flags: the walk found none.
func TestRecursiveSearchCleanScope(t *testing.T) {
	proj := t.TempDir()
	writeFile(t, proj, "src/main.go", "package main // API_KEY=x\n")
	writeFile(t, proj, "README.md", "SECRET=\n")
	e := Env{Project: proj, Cwd: proj, Home: t.TempDir()}
	for _, cmd := range []string{"grep -r 'T=' .", "grep -rn API .", "grep -rv zzz .", "rg --hidden =", "grep -rn TODO ."} {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, protocol.DecisionAllow, v.Decision, cmd)
	}
	// something else in the call could create a .env first
	v := Analyze(bash("python x.py; grep -rn API ."), e)
	assert.True(t, v.HumanOnly)
}

// The search tools of the hosts (Claude's Grep, Gemini's
// search_file_content and grep_search) and Gemini's read_many_files go
// through the same walk: a fixed string no sensitive file holds, a list
// of names, or a scope without one is allowed.
func TestToolSearchScope(t *testing.T) {
	e := secretProject(t)
	certs := filepath.Join(e.Project, "certs")
	cases := []struct {
		name  string
		call  protocol.ToolCall
		human bool
	}{
		{"Grep of a key body", tool("Grep", map[string]any{"pattern": "MII", "output_mode": "content"}), true},
		{"Grep of NAME=", tool("Grep", map[string]any{"pattern": "T="}), true},
		{"Grep in certs", tool("Grep", map[string]any{"pattern": "A", "path": certs}), true},
		{"Grep of a word no secret holds", tool("Grep", map[string]any{"pattern": "TODO"}), false},
		{"Grep listing names", tool("Grep", map[string]any{"pattern": "T=", "output_mode": "files_with_matches"}), false},
		{"Grep of Go files", tool("Grep", map[string]any{"pattern": "T=", "glob": "*.go"}), false},
		{"Grep following the link to the key", tool("Grep", map[string]any{"pattern": "sshkey"}), true},
		{"search_file_content", tool("search_file_content", map[string]any{"pattern": "T=", "path": e.Project}), true},
		{"grep_search", tool("grep_search", map[string]any{"pattern": "MII", "dir_path": e.Project}), true},
		{"read_many_files of the tree", tool("read_many_files", map[string]any{"include": []any{"**/*"}, "paths": []any{"."}}), true},
		{"read_many_files of a directory", tool("read_many_files", map[string]any{"paths": []any{"."}}), true},
		{"read_many_files of Go files", tool("read_many_files", map[string]any{"include": []any{"**/*.go"}, "paths": []any{"."}}), false},
		{"read_many_files of src", tool("read_many_files", map[string]any{"paths": []any{"src"}}), false},
		// a broad glob reads its fixed directory: the walk of it decides
		{"read_many_files include src/**", tool("read_many_files", map[string]any{"include": []any{"src/**"}}), false},
		{"read_many_files include src/**/*.go", tool("read_many_files", map[string]any{"include": []any{"src/**/*.go"}}), false},
		{"read_many_files include certs/*", tool("read_many_files", map[string]any{"include": []any{"certs/*"}}), true},
		{"read_many_files paths certs/**", tool("read_many_files", map[string]any{"paths": []any{"certs/**"}}), true},
		{"read_many_files include **", tool("read_many_files", map[string]any{"include": []any{"**"}}), true},
		{"read_many_files include *.json", tool("read_many_files", map[string]any{"include": []any{"*.json"}}), true},
		{"Grep in src/**", tool("Grep", map[string]any{"pattern": "T=", "path": "src/**"}), false},
		{"Grep in certs/*", tool("Grep", map[string]any{"pattern": "A", "path": "certs/*"}), true},
	}
	for _, c := range cases {
		v := Analyze(c.call, e)
		assert.Equal(t, c.human, v.HumanOnly, c.name)
		if c.human {
			assert.Equal(t, protocol.DecisionAsk, v.Decision, c.name)
		} else {
			assert.Equal(t, protocol.DecisionAllow, v.Decision, c.name)
		}
	}
}

// git grep outside the index (--no-index, --untracked) reads the files on
// disk: the walk decides as for grep -r.
func TestGitGrepScope(t *testing.T) {
	e := secretProject(t)
	for cmd, human := range map[string]bool{
		"git grep --no-index MII":           true,
		"git grep --untracked 'T='":         true,
		"git grep --no-index TODO":          false,
		"git grep --no-index hunter":        true,
		"git grep --no-index hunter -- src": false,
	} {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, human, v.HumanOnly, cmd)
	}
}

// A hard link to .env under a plain name is read as .env; a scope too
// large to walk is human-only for a search that prints lines, not for one
// that lists names.
func TestRecursiveSearchHardLinkAndCap(t *testing.T) {
	dir := t.TempDir()
	env := writeFile(t, dir, "a/.env", "SECRET=hunter2\n")
	writeFile(t, dir, "c/main.go", "package main\n")
	if os.Link(env, filepath.Join(dir, "a", "notes.txt")) != nil {
		t.Skip("no hard links here")
	}
	big := filepath.Join(dir, "big")
	require.NoError(t, os.MkdirAll(big, 0o755))
	for i := range maxWalk + 1 {
		require.NoError(t, os.WriteFile(filepath.Join(big, "f"+strconv.Itoa(i)), nil, 0o644))
	}
	e := Env{Project: dir, Cwd: dir, Home: t.TempDir()}
	for cmd, human := range map[string]bool{
		"rg hunter a":       true, // rg skips .env, not notes.txt
		"rg hunter c":       false,
		"grep -rn TODO big": true,
		"grep -rl TODO big": false,
	} {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, human, v.HumanOnly, cmd)
	}
}
