package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// proc is one peer process (perm-peer or echopeer) driven over stdio.
type proc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	framing string // "ndjson" or "lsp"
	stderr  bytes.Buffer
}

// response is the part of a reply the harness checks.
type response struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func spawn(bin string, args []string, env []string, framing string) (*proc, error) {
	p := &proc{cmd: exec.Command(bin, args...), framing: framing}
	p.cmd.Env = env
	p.cmd.Stderr = &p.stderr
	in, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe for %s: %w", bin, err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe for %s: %w", bin, err)
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p.in, p.out = in, bufio.NewReaderSize(out, 64<<10)
	return p, nil
}

// frame wraps body in the process's framing.
func (p *proc) frame(body []byte) []byte {
	if p.framing == "ndjson" {
		return append(append(make([]byte, 0, len(body)+1), body...), '\n')
	}
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

func (p *proc) write(body []byte) error {
	if _, err := p.in.Write(p.frame(body)); err != nil {
		return fmt.Errorf("write to pid %d: %w", p.cmd.Process.Pid, err)
	}
	return nil
}

// read returns the next message the process wrote.
func (p *proc) read() (response, error) {
	var body []byte
	if p.framing == "ndjson" {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return response{}, p.readErr(err)
		}
		body = line
	} else {
		n := -1
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				return response{}, p.readErr(err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if n < 0 {
			return response{}, errors.New("frame without Content-Length")
		}
		body = make([]byte, n)
		if _, err := io.ReadFull(p.out, body); err != nil {
			return response{}, p.readErr(err)
		}
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return response{}, fmt.Errorf("invalid JSON from pid %d: %q: %w", p.cmd.Process.Pid, body, err)
	}
	return r, nil
}

func (p *proc) readErr(err error) error {
	return fmt.Errorf("read from pid %d: %w; stderr: %s", p.cmd.Process.Pid, err, strings.TrimSpace(p.stderr.String()))
}

// call writes body and reads the reply to it.
func (p *proc) call(body []byte) (response, error) {
	if err := p.write(body); err != nil {
		return response{}, err
	}
	return p.read()
}

// close ends the process's input and waits for it to exit (killing it after
// a bound, which is then an error).
func (p *proc) close() error {
	_ = p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("pid %d exited: %w; stderr: %s", p.cmd.Process.Pid, err, strings.TrimSpace(p.stderr.String()))
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
		return fmt.Errorf("pid %d did not exit within 30s of EOF", p.cmd.Process.Pid)
	}
}

// memory reads VmRSS and VmHWM (kB) of the process from /proc.
func (p *proc) memory() (rssKB, hwmKB int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read process status: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.Atoi(f[0])
		switch name {
		case "VmRSS":
			rssKB = n
		case "VmHWM":
			hwmKB = n
		}
	}
	if rssKB == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", p.cmd.Process.Pid)
	}
	return rssKB, hwmKB, nil
}

// cpu is the process's user+system CPU so far, from /proc/PID/stat (in
// USER_HZ ticks, 100 per second on Linux).
func (p *proc) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("read process stat: %w", err)
	}
	// the command name (field 2) may hold spaces: count from after it
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", p.cmd.Process.Pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat: %v %v", p.cmd.Process.Pid, err1, err2)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
