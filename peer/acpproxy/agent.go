package acpproxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Agent is the agent process the proxy runs, in a process group of its
// own, so that stopping it stops what it started too (Claude's adapter runs
// the Claude CLI as its child). On Linux it dies with perm-peer
// (PR_SET_PDEATHSIG), so it never outlives the proxy that guards it.
type Agent struct {
	cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout *os.File
	exited chan struct{} // closed once the agent itself is reaped
	done   chan struct{} // closed once what it left in its group is stopped too
	once   sync.Once

	mu   sync.Mutex
	sent []syscall.Signal // the signals Stop sent
	code int
	sig  syscall.Signal // the signal that ended the agent, 0 if it exited
}

// StartAgent starts argv with its stderr on stderr. An agent that cannot be
// found or started is an error: the caller exits without it.
func StartAgent(argv []string, stderr io.Writer) (*Agent, error) {
	if len(argv) == 0 {
		return nil, errors.New("no agent command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("agent %q not found: %w", argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stderr = stderr
	ownGroup(cmd)
	a := &Agent{cmd: cmd, exited: make(chan struct{}), done: make(chan struct{})}
	if a.Stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("agent stdin: %w", err)
	}
	// Our own pipe, not StdoutPipe: Wait closes that one when the agent
	// exits, and the agent's last lines could be lost unread. Its read end
	// takes a deadline: a process the agent started may hold the write end
	// long after the agent is gone.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("agent stdout: %w", err)
	}
	cmd.Stdout = w
	if err := startOnOwnThread(a); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start agent %q: %w", argv[0], err)
	}
	w.Close()
	a.Stdout = r
	return a, nil
}

// startOnOwnThread starts the agent from a goroutine locked to its OS
// thread, which then waits for the agent there. Linux sends the parent-death
// signal when the thread that forked the child ends, not the process, and
// the Go runtime ends a thread whose locked goroutine returns: so the thread
// is kept for as long as the agent runs (go.dev/issue/27505).
func startOnOwnThread(a *Agent) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := a.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		a.wait()
	}()
	return <-started
}

// wait reaps the agent and then stops what it left behind in its group:
// SIGTERM, and SIGKILL for what is still there after groupGrace.
func (a *Agent) wait() {
	err := a.cmd.Wait()
	a.mu.Lock()
	a.code, a.sig = exitStatus(a.cmd.ProcessState, err)
	a.mu.Unlock()
	close(a.exited)
	signalGroup(a.cmd, syscall.SIGTERM)
	waitGroupGone(a.cmd, groupGrace)
	signalGroup(a.cmd, syscall.SIGKILL)
	// SIGKILL is delivered asynchronously: wait, bounded, until the
	// group is gone, so that when perm-peer exits nothing it started runs.
	waitGroupGone(a.cmd, groupGrace)
	close(a.done)
}

// waitGroupGone polls until no process of the agent's group is left, for
// at most limit.
func waitGroupGone(cmd *exec.Cmd, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for groupAlive(cmd) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// groupGrace is how long the agent's leftover processes have to exit
// after SIGTERM once the agent itself has exited.
const groupGrace = 2 * time.Second

// Exited is closed once the agent process has exited and been reaped,
// whoever still holds its pipes.
func (a *Agent) Exited() <-chan struct{} { return a.exited }

// Wait waits for the agent and its group to be gone and returns the exit
// code perm-peer exits with: the agent's, or 128+N after signal N.
func (a *Agent) Wait() int {
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.code
}

// StoppedBy is the signal Stop sent that ended the agent (0 when the agent
// exited by itself or by another signal). Call it after Wait.
func (a *Agent) StoppedBy() syscall.Signal {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.sent {
		if s == a.sig {
			return s
		}
	}
	return 0
}

// Stop ends an agent whose stdin has been closed: it has grace to exit by
// itself, then gets SIGTERM, then (after grace again) SIGKILL. Each
// signal goes to the agent's whole process group.
func (a *Agent) Stop(grace time.Duration) {
	a.once.Do(func() {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
			select {
			case <-a.exited:
				return
			case <-time.After(grace):
			}
			a.mu.Lock()
			a.sent = append(a.sent, sig)
			a.mu.Unlock()
			signalGroup(a.cmd, sig)
		}
	})
}

// Terminate passes a signal perm-peer got on to the agent's process group
// and sends SIGKILL after grace if the agent is still running.
func (a *Agent) Terminate(sig syscall.Signal, grace time.Duration) {
	signalGroup(a.cmd, sig)
	go func() {
		select {
		case <-a.exited:
		case <-time.After(grace):
			signalGroup(a.cmd, syscall.SIGKILL)
		}
	}()
}

// Pid is the agent's process id.
func (a *Agent) Pid() int { return a.cmd.Process.Pid }

// exitStatus is the code perm-peer exits with for the agent's end (128+N
// after signal N) and the signal, if one ended it.
func exitStatus(st *os.ProcessState, err error) (int, syscall.Signal) {
	if st == nil {
		if err != nil {
			return 1, 0
		}
		return 0, 0
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal()
	}
	return st.ExitCode(), 0
}
