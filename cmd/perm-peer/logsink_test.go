package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// gatedWriter blocks every Write until open is closed: stderr nobody reads.
type gatedWriter struct {
	open chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

// TestLogSinkNeverBlocks (L7): with stderr stuck, 5 000 log writes return
// at once; what did not fit the queue is dropped and counted, and the count
// is reported once stderr moves again.
func TestLogSinkNeverBlocks(t *testing.T) {
	g := &gatedWriter{open: make(chan struct{})}
	s := newLogSink(g)
	const n = 5000
	for i := range n {
		fmt.Fprintf(s, "line %d\n", i) // would hang the test if it blocked
	}
	close(g.open)
	s.flush()
	out := g.buf.String()
	written := strings.Count(out, "line ")
	// The count may come in two notices: one taken while lines were still
	// being dropped, the rest once stderr moved.
	notices := regexp.MustCompile(`perm-peer: (\d+) log lines dropped: stderr was not read\n`).FindAllStringSubmatch(out, -1)
	if len(notices) == 0 {
		t.Fatalf("no drop notice in %d bytes of output", len(out))
	}
	dropped := 0
	for _, m := range notices {
		k, _ := strconv.Atoi(m[1])
		dropped += k
	}
	if written+dropped != n || written > logQueue+1 || written < logQueue {
		t.Fatalf("%d lines written and %d dropped, want %d in all with %d or %d written", written, dropped, n, logQueue, logQueue+1)
	}
	// After flush, writes are dropped, never a panic.
	fmt.Fprintln(s, "late")
}
