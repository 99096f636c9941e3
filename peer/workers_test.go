package peer

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// run never waits for a busy worker: tasks that block until all of them
// have started can only finish if each got its own goroutine.
func TestWorkersNeverQueue(t *testing.T) {
	p := newWorkers()
	const n = 16
	var started, finished sync.WaitGroup
	started.Add(n)
	finished.Add(n)
	release := make(chan struct{})
	for range n {
		p.run(func() {
			started.Done()
			<-release
			finished.Done()
		})
	}
	started.Wait() // deadlocks (and the test times out) if any task queued
	close(release)
	finished.Wait()
	p.stop()
}

// A finished worker takes the next task: sequential tasks run on one
// goroutine, which keeps its grown stack.
func TestWorkersReuseGoroutines(t *testing.T) {
	p := newWorkers()
	idle := make(chan struct{}, 1)
	p.onIdle = func() { idle <- struct{}{} }
	ids := make(chan string, 1)
	p.run(func() { ids <- goroutineID() })
	first := <-ids
	for range 50 {
		<-idle // the worker has finished and is about to wait for work
		// Hand the task over the way run does when a worker is idle, but
		// blocking: onIdle fires just before the worker reaches its
		// receive, and run's non-blocking send could miss it by a hair and
		// (correctly) start a new goroutine.
		p.tasks <- func() { ids <- goroutineID() }
		assert.Equal(t, first, <-ids)
	}
	<-idle
	p.stop()
}

// goroutineID is the number runtime.Stack prints for this goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// stop waits for running tasks and lets idle workers exit.
func TestWorkersStop(t *testing.T) {
	p := newWorkers()
	done := false
	release := make(chan struct{})
	started := make(chan struct{})
	p.run(func() { close(started); <-release; done = true })
	<-started
	stopped := make(chan struct{})
	go func() { p.stop(); close(stopped) }()
	close(release)
	<-stopped
	assert.True(t, done, "stop returned before the running task finished")
}
