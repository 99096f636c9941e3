package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// logSink is the writer under the process's slog handler. An editor that
// never reads the peer's stderr fills the pipe after about 64 KiB, and a
// synchronous write would then block whichever request was logging, and
// with it the replies and the exit on EOF. So a write only queues the line
// (at most logQueue lines); a goroutine copies them to stderr; a line that
// finds the queue full is dropped and counted, and the count is reported
// once stderr moves again. On exit the queue is flushed for at most
// logFlushWait.
type logSink struct {
	out     io.Writer
	lines   chan []byte
	dropped atomic.Int64
	done    chan struct{}

	mu     sync.RWMutex // closed and the closing of lines
	closed bool
}

const (
	logQueue     = 1024
	logFlushWait = 100 * time.Millisecond
)

func newLogSink(out io.Writer) *logSink {
	s := &logSink{out: out, lines: make(chan []byte, logQueue), done: make(chan struct{})}
	go s.drain()
	return s
}

// Write queues one log line; it never blocks.
func (s *logSink) Write(p []byte) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return len(p), nil
	}
	select {
	case s.lines <- append([]byte(nil), p...):
	default:
		s.dropped.Add(1)
	}
	return len(p), nil
}

func (s *logSink) drain() {
	defer close(s.done)
	for line := range s.lines {
		if n := s.dropped.Swap(0); n > 0 {
			fmt.Fprintf(s.out, "perm-peer: %d log lines dropped: stderr was not read\n", n)
		}
		_, _ = s.out.Write(line)
	}
}

// flush stops the sink and waits, at most logFlushWait, for the queued
// lines to reach stderr. Writes after flush are dropped.
func (s *logSink) flush() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.lines)
	}
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-time.After(logFlushWait):
	}
}
