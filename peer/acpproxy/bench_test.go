package acpproxy

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/perm-peer/perm-peer/peer"
)

// BenchmarkRelayLine is the proxy's own work on one relayed agent line
// (the relay's full cost, pipes and all, is bench/acprelay).
func BenchmarkRelayLine(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"agent_message_chunk", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"bench-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Reading the configuration files to find where the test runner is set up, then running the tests."}}}}`},
		{"tool_call", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"bench-1","update":{"sessionUpdate":"tool_call","toolCallId":"toolu_01ABCDEF","title":"go test ./...","kind":"execute","status":"pending","rawInput":{"command":"go test ./...","description":"Run the tests"},"_meta":{"claudeCode":{"toolName":"Bash"}}}}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			srv := peer.New(peer.Config{Project: dir, DBPath: filepath.Join(dir, "a.db"), UserPolicyFile: filepath.Join(dir, "none.json"), Home: dir})
			if err := srv.Open(); err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			p := New(srv, Options{})
			p.toEditor = &lineWriter{w: io.Discard}
			line := []byte(c.line)
			b.ReportAllocs()
			for b.Loop() {
				p.agentLine(line)
			}
		})
	}
}
