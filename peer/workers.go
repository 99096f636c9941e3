package peer

import "time"

// workerIdle is how long an idle request goroutine waits for more work.
const workerIdle = 10 * time.Second

// workers runs request handlers on reused goroutines. A new goroutine starts
// with a small stack and grows it, copying, on every request (schema
// validation and the gate recurse deeply): about a sixth of a decision's CPU
// at 64 requests in flight. A reused one keeps its grown stack.
type workers struct {
	tasks chan func()   // unbuffered: a send succeeds only to an idle worker
	quit  chan struct{} // closed by stop
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
		go p.loop(f)
	}
}

func (p *workers) loop(f func()) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		f()
		idle.Reset(workerIdle)
		select {
		case f = <-p.tasks:
		case <-idle.C:
			return
		case <-p.quit:
			return
		}
	}
}

// stop lets idle workers exit; running handlers finish first.
func (p *workers) stop() { close(p.quit) }
