package peer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
)

// benchServer is a server on a fresh project whose DB lives on the disk of
// the working directory (not tmpfs), so the durable commit is real.
// PERM_PEER_BENCH_DIR puts it elsewhere: /dev/shm makes the commit nearly
// free, for a CPU profile of the rest.
func benchServer(b *testing.B) *Server {
	b.Helper()
	parent := "."
	if d := os.Getenv("PERM_PEER_BENCH_DIR"); d != "" {
		parent = d
	}
	dir, err := os.MkdirTemp(parent, "bench-")
	if err != nil {
		b.Fatal(err)
	}
	dir, _ = filepath.Abs(dir)
	b.Cleanup(func() { os.RemoveAll(dir) })
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		b.Fatal(err)
	}
	s := New(Config{Project: project, DBPath: filepath.Join(dir, "audit.db"), UserPolicyFile: filepath.Join(dir, "none.json"), Home: dir})
	if err := s.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkDecideFastPath is one known-safe call through the whole pipeline,
// durable audit append included, without the wire.
func BenchmarkDecideFastPath(b *testing.B) {
	s := benchServer(b)
	w, err := s.world()
	if err != nil {
		b.Fatal(err)
	}
	sess, err := s.session("bench")
	if err != nil {
		b.Fatal(err)
	}
	call := protocol.ToolCall{Tool: "bash", Kind: protocol.KindExecute, RawInput: json.RawMessage(`{"command":"git status"}`)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := s.decide(context.Background(), w, sess, 1, call, nil, false)
		if err != nil || r.Reply != protocol.ReplyOnce {
			b.Fatalf("decide: %v %v", r, err)
		}
	}
}

// BenchmarkServeFastPath is the same call over NDJSON on in-memory pipes:
// framing, validation, dispatch, pipeline, audit, reply.
func BenchmarkServeFastPath(b *testing.B) {
	_, in, out, done := benchServe(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchSend(b, in, i+1)
		benchReply(b, out)
	}
	b.StopTimer()
	in.Close()
	<-done
}

// BenchmarkServePipelined sends every request at once (up to b.N in
// flight) and reads the replies: group commit and the worker goroutines.
func BenchmarkServePipelined(b *testing.B) {
	_, in, out, done := benchServe(b)
	b.ResetTimer()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 0; i < b.N; i++ {
			benchSend(b, in, i+1)
		}
	}()
	for i := 0; i < b.N; i++ {
		benchReply(b, out)
	}
	<-sent
	b.StopTimer()
	in.Close()
	<-done
}

// benchServe serves a benchServer over NDJSON pipes, initialized.
func benchServe(b *testing.B) (*Server, *io.PipeWriter, *bufio.Reader, chan int) {
	b.Helper()
	s := benchServer(b)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() { done <- s.Serve(context.Background(), inR, outW) }()
	out := bufio.NewReader(outR)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`+"\n"); err != nil {
		b.Fatal(err)
	}
	if _, err := out.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	return s, inW, out, done
}

func benchSend(b *testing.B, in io.Writer, id int) {
	_, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"session/requestPermission","params":{"sessionId":"s","turn":1,"toolCall":{"tool":"bash","kind":"execute","rawInput":{"command":"git status"}}}}`+"\n", id)
	if err != nil {
		b.Error(err)
	}
}

func benchReply(b *testing.B, out *bufio.Reader) {
	line, err := out.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Contains(line, []byte(`"reply":"once"`)) {
		b.Fatalf("not the fast path's once: %s", line)
	}
}
