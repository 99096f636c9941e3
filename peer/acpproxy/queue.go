package acpproxy

import (
	"io"
	"log/slog"
	"sync"
)

// maxQueued bounds the bytes of editor lines waiting for the agent to read
// them. A single line is always taken when nothing waits, however long.
const maxQueued = 32 << 20

// agentQueue holds the lines on their way to the agent, so that reading the
// editor (and seeing its EOF) never waits on the agent reading its stdin.
// One goroutine (run) writes them to the agent in order.
type agentQueue struct {
	mu     sync.Mutex
	lines  [][]byte
	bytes  int
	closed bool
	failed bool          // the agent's stdin failed: lines are dropped
	ready  chan struct{} // a line was queued, or the queue closed
	space  chan struct{} // a line was taken
}

func newAgentQueue() *agentQueue {
	return &agentQueue{ready: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

// Write queues a copy of b whatever the budget: it is the proxy's own
// answer to the agent, small, and at most MaxPending of them are due.
func (q *agentQueue) Write(b []byte) (int, error) {
	q.put(append([]byte(nil), b...), true)
	return len(b), nil
}

// offer queues line and a newline when it fits the budget (or nothing
// waits); false when the queue is full.
func (q *agentQueue) offer(line []byte) bool {
	return q.put(append(append(make([]byte, 0, len(line)+1), line...), '\n'), false)
}

func (q *agentQueue) put(b []byte, force bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.failed || q.closed {
		return true // nobody will read it
	}
	if !force && len(q.lines) > 0 && q.bytes+len(b) > maxQueued {
		return false
	}
	q.lines = append(q.lines, b)
	q.bytes += len(b)
	signal(q.ready)
	return true
}

// close ends the queue: run writes what is queued, then closes the agent's
// stdin.
func (q *agentQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	signal(q.ready)
}

// run writes the queued lines to w in order until the queue is closed and
// empty, then closes w. After a failed write the rest is dropped.
func (q *agentQueue) run(w io.WriteCloser) {
	defer w.Close()
	for {
		q.mu.Lock()
		if len(q.lines) == 0 {
			closed := q.closed
			q.mu.Unlock()
			if closed {
				return
			}
			<-q.ready
			continue
		}
		b := q.lines[0]
		q.lines[0] = nil
		q.lines = q.lines[1:]
		q.bytes -= len(b)
		failed := q.failed
		q.mu.Unlock()
		signal(q.space)
		if failed {
			continue
		}
		if _, err := w.Write(b); err != nil {
			slog.Warn("acp: writing to the agent", "err", err)
			q.mu.Lock()
			q.failed = true
			q.lines, q.bytes = nil, 0
			q.mu.Unlock()
			signal(q.space)
		}
	}
}

// signal wakes the one waiting on ch, if any, without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
