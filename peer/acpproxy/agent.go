package acpproxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Agent is the agent process the proxy runs, in a process group of its
// own, so that stopping it stops what it started too (Claude's adapter runs
// the Claude CLI as its child).
type Agent struct {
	cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	done   chan struct{}
	once   sync.Once
	code   int
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
	a := &Agent{cmd: cmd, done: make(chan struct{})}
	if a.Stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("agent stdin: %w", err)
	}
	// Our own pipe, not StdoutPipe: Wait closes that one when the agent
	// exits, and the agent's last lines could be lost unread.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("agent stdout: %w", err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start agent %q: %w", argv[0], err)
	}
	w.Close()
	a.Stdout = r
	go a.wait()
	return a, nil
}

// wait reaps the agent and then stops what it left behind in its group:
// SIGTERM, and SIGKILL for what is still there after groupGrace.
func (a *Agent) wait() {
	err := a.cmd.Wait()
	a.code = exitCode(a.cmd.ProcessState, err)
	signalGroup(a.cmd, syscall.SIGTERM)
	deadline := time.Now().Add(groupGrace)
	for groupAlive(a.cmd) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	signalGroup(a.cmd, syscall.SIGKILL)
	close(a.done)
}

// groupGrace is how long the agent's leftover processes have to exit
// after SIGTERM once the agent itself has exited.
const groupGrace = 2 * time.Second

// Wait waits for the agent to exit and returns the exit code perm-peer
// exits with: the agent's, or 128+N after signal N.
func (a *Agent) Wait() int {
	<-a.done
	return a.code
}

// Stop ends an agent whose stdin has been closed: it has grace to exit by
// itself, then gets SIGTERM, then (after grace again) SIGKILL. Each
// signal goes to the agent's whole process group.
func (a *Agent) Stop(grace time.Duration) {
	a.once.Do(func() {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
			select {
			case <-a.done:
				return
			case <-time.After(grace):
			}
			signalGroup(a.cmd, sig)
		}
	})
}

// Signal sends sig to the agent's process group.
func (a *Agent) Signal(sig syscall.Signal) { signalGroup(a.cmd, sig) }

// Pid is the agent's process id.
func (a *Agent) Pid() int { return a.cmd.Process.Pid }

func exitCode(st *os.ProcessState, err error) int {
	if st == nil {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
