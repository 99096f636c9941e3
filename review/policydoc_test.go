package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/gate"
)

// TestPolicyDocLoads: the whole policy file of docs/POLICY.md, its
// comments removed, loads, and every example in it holds.
func TestPolicyDocLoads(t *testing.T) {
	doc, err := os.ReadFile("../docs/POLICY.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "```jsonc\n")
	require.True(t, ok, "no jsonc block")
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.json")
	require.NoError(t, os.WriteFile(file, []byte(stripComments(block)), 0o600))
	pol, err := gate.LoadPolicyUnchecked(file, "", dir)
	require.NoError(t, err)
	results := pol.CheckExamples(dir)
	require.Len(t, results, 6)
	for _, r := range results {
		require.True(t, r.OK, "%+v", r)
	}
}

// stripComments drops // comments outside strings.
func stripComments(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			if c == '"' && !escaped {
				inString = false
			}
			escaped = !escaped && c == '\\'
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			if i < len(s) {
				b.WriteByte('\n')
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
