// Command acprelay measures the latency perm-peer acp adds to a relayed
// message, against a bare relay (a process in the middle that copies lines
// and nothing else) and a direct connection, in one run:
//
//	go run ./bench/acprelay -peer bin/perm-peer
//
// The "agent" echoes every line it reads, so one round trip crosses the
// middle twice: editor → middle → agent → middle → editor. Two messages:
// an agent_message_chunk session/update (passed through untouched) and a
// tool_call session/update (which the proxy also remembers for later
// permission requests). The same binary plays the echo agent (-echo) and
// the bare relay (-relay -- AGENT...).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"text/tabwriter"
	"time"
)

func main() {
	peerBin := flag.String("peer", "bin/perm-peer", "the perm-peer binary")
	n := flag.Int("n", 3000, "round trips per message and setup")
	echo := flag.Bool("echo", false, "be the echo agent (internal)")
	relay := flag.Bool("relay", false, "be the bare relay around the command after -- (internal)")
	flag.Parse()
	switch {
	case *echo:
		echoLines(os.Stdin, os.Stdout)
		return
	case *relay:
		os.Exit(bareRelay(flag.Args()))
	}
	if err := run(*peerBin, *n); err != nil {
		fmt.Fprintln(os.Stderr, "acprelay:", err)
		os.Exit(1)
	}
}

const (
	chunkMsg = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"bench-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Reading the configuration files to find where the test runner is set up, then running the tests."}}}}`
	toolMsg  = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"bench-1","update":{"sessionUpdate":"tool_call","toolCallId":"toolu_01ABCDEF","title":"go test ./...","kind":"execute","status":"pending","rawInput":{"command":"go test ./...","description":"Run the tests"},"_meta":{"claudeCode":{"toolName":"Bash"}}}}}`
)

func run(peerBin string, n int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	peerBin, err = filepath.Abs(peerBin)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "acprelay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	agent := []string{self, "-echo"}
	setups := []struct {
		name string
		argv []string
	}{
		{"direct (no middle)", agent},
		{"bare relay", append([]string{self, "-relay", "--"}, agent...)},
		{"perm-peer acp", append([]string{peerBin, "acp", "--project", dir, "--db", filepath.Join(dir, "bench.db"), "--"}, agent...)},
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	results := map[string]map[string]stats{}
	for _, msg := range []struct{ name, line string }{{"agent_message_chunk", chunkMsg}, {"tool_call", toolMsg}} {
		results[msg.name] = map[string]stats{}
		for _, s := range setups {
			st, err := measure(s.argv, env, msg.line, n)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			results[msg.name][s.name] = st
		}
	}
	fmt.Printf("ACP relay round trip (editor → middle → echo agent → middle → editor), %d sequential trips\n", n)
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "message\tsetup\tp50\tp99\tadded p50 vs bare relay\tratio p50 vs bare relay\t")
	for _, msg := range []string{"agent_message_chunk", "tool_call"} {
		bare := results[msg]["bare relay"]
		for _, s := range setups {
			st := results[msg][s.name]
			added, ratio := "", ""
			if s.name == "perm-peer acp" {
				added = (st.p50 - bare.p50).String()
				ratio = fmt.Sprintf("%.2f", float64(st.p50)/float64(bare.p50))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", msg, s.name, st.p50, st.p99, added, ratio)
		}
	}
	return tw.Flush()
}

type stats struct{ p50, p99 time.Duration }

// measure starts argv and times n round trips of line through it.
func measure(argv []string, env []string, line string, n int) (stats, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return stats{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return stats{}, err
	}
	if err := cmd.Start(); err != nil {
		return stats{}, err
	}
	r := bufio.NewReaderSize(out, 1<<16)
	msg := []byte(line + "\n")
	trip := func() (time.Duration, error) {
		start := time.Now()
		if _, err := in.Write(msg); err != nil {
			return 0, err
		}
		got, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if got != line+"\n" {
			return 0, fmt.Errorf("the line came back changed: %q", got)
		}
		return time.Since(start), nil
	}
	for range n / 10 { // warm up
		if _, err := trip(); err != nil {
			return stats{}, err
		}
	}
	times := make([]time.Duration, 0, n)
	for range n {
		d, err := trip()
		if err != nil {
			return stats{}, err
		}
		times = append(times, d)
	}
	in.Close()
	_ = cmd.Wait()
	slices.Sort(times)
	return stats{p50: times[len(times)/2], p99: times[len(times)*99/100]}, nil
}

// echoLines writes back every line it reads.
func echoLines(r io.Reader, w io.Writer) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// bareRelay runs argv and copies lines both ways, nothing else: the cost
// of any process in the middle.
func bareRelay(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 3
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 3
	}
	if err := cmd.Start(); err != nil {
		return 3
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		echoLines(os.Stdin, in)
		in.Close()
	}()
	echoLines(out, os.Stdout)
	_ = cmd.Wait()
	return 0
}
