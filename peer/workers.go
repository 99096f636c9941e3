package peer

import (
	"sync"
	"time"
)

// workerIdle is how long an idle request goroutine waits for more work.
const workerIdle = 10 * time.Second

// workers runs request handlers on reused goroutines. A new goroutine starts
// with a small stack and grows it, copying, on every request (schema
// validation and the gate recurse deeply): about a sixth of a decision's CPU
// at 64 requests in flight. A reused one keeps its grown stack.
type workers struct {
	tasks chan func()   // unbuffered: a send succeeds only to an idle worker
	quit  chan struct{} // closed by stop
	live  sync.WaitGroup
	// onIdle, when set (tests), runs each time a worker becomes idle.
	onIdle func()
}

func newWorkers() *workers {
	return &workers{tasks: make(chan func()), quit: make(chan struct{})}
}

// run hands f to an idle worker, or starts one: it never waits, so no
// request queues behind another.
func (p *workers) run(f func()) {
	select {
	case p.tasks <- f:
	default:
		p.live.Add(1)
		go p.loop(f)
	}
}

func (p *workers) loop(f func()) {
	defer p.live.Done()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		f()
		idle.Reset(workerIdle)
		if p.onIdle != nil {
			p.onIdle()
		}
		var ok bool
		if f, ok = p.wait(idle, 0); !ok {
			return
		}
	}
}

// parkedStack is how much stack an idle worker holds while it waits. The
// garbage collector halves the stack of a parked goroutine that uses less
// than a quarter of it, and the next request grows it again, copying. In a
// CPU profile of the binary at 64 requests in flight, runtime.copystack
// fell from 7% of the samples to 1.2% with 16 KB held here (in the
// in-process BenchmarkServePipelined, 18% to under 5%); the whole CPU per
// decision moved less than the noise of this machine. It costs at most
// 64 KB of stack per idle worker, and idle workers exit after workerIdle.
const parkedStack = 16 << 10

// wait parks the worker until the next task (ok) or its end, from a frame
// of parkedStack bytes so that the stack it grew serving requests is kept.
//
//go:noinline
func (p *workers) wait(idle *time.Timer, i int) (f func(), ok bool) {
	var pad [parkedStack]byte
	pad[i] = 1 // used, so the frame is not optimised away
	select {
	case f = <-p.tasks:
		return f, pad[i] == 1
	case <-idle.C:
	case <-p.quit:
	}
	return nil, false
}

// stop makes idle workers exit and waits for every worker to finish its
// task and exit. run must not be called after stop.
func (p *workers) stop() {
	close(p.quit)
	p.live.Wait()
}

// Bounds on the requests in flight (docs/PROTOCOL.md §1). When either is
// reached the read loop stops reading until a request finishes: the editor
// sees back-pressure (its writes block), never an error and never a lost
// request. A request waiting for the editor's answer to its permission/ask
// holds no slot (load.park): the loop must go on reading to see that
// answer. Pending asks have bounds of their own (MaxPendingAsks), so the
// requests that hold the slots can always finish without more input.
const (
	MaxInFlight      = 256
	MaxInFlightBytes = 32 << 20 // frame bytes of the requests in flight
)

// load counts the requests in flight and their frame bytes.
type load struct {
	mu    sync.Mutex
	room  *sync.Cond
	n     int
	bytes int
}

func (l *load) add(size int) {
	l.mu.Lock()
	l.n++
	l.bytes += size
	l.mu.Unlock()
}

func (l *load) done(size int) {
	l.mu.Lock()
	l.n--
	l.bytes -= size
	if l.room != nil {
		l.room.Broadcast()
	}
	l.mu.Unlock()
}

// park releases a request's slot while it waits for the editor; unpark
// takes it back (never blocking: the request is already running).
func (l *load) park(size int) (unpark func()) {
	l.done(size)
	return func() { l.add(size) }
}

// waitForRoom blocks while the bounds are reached.
func (l *load) waitForRoom() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.n >= MaxInFlight || l.bytes >= MaxInFlightBytes {
		if l.room == nil {
			l.room = sync.NewCond(&l.mu)
		}
		l.room.Wait()
	}
}
