package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// target is one command measured per call.
type target struct {
	name  string
	argv  []string
	env   []string
	input []byte // nil: the hook input
	fails bool   // the call is expected to exit 2 (a refused input)
	took  []time.Duration
}

func main() {
	peer := flag.String("peer", "bin/perm-peer", "the perm-peer binary")
	base := flag.String("base", "", "an earlier perm-peer binary, measured in the same run (before/after)")
	n := flag.Int("n", 200, "calls per target")
	flag.Parse()
	if err := run(*peer, *base, *n); err != nil {
		fmt.Fprintln(os.Stderr, "hookcall:", err)
		os.Exit(1)
	}
}

func run(peer, base string, n int) error {
	peer, err := filepath.Abs(peer)
	if err != nil {
		return err
	}
	if base != "" {
		if base, err = filepath.Abs(base); err != nil {
			return err
		}
	}
	fmt.Println(machine())
	tmp, err := os.MkdirTemp("", "hookcall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		return err
	}
	bare, full := filepath.Join(tmp, "floor-bare"), filepath.Join(tmp, "floor-validate")
	for _, b := range []struct{ out, tags string }{{bare, ""}, {full, "validate"}} {
		args := []string{"build", "-o", b.out}
		if b.tags != "" {
			args = append(args, "-tags", b.tags)
		}
		cmd := exec.Command("go", append(args, "./bench/hookcall/floor")...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build floor: %v\n%s", err, out)
		}
	}
	input := []byte(fmt.Sprintf(`{"session_id":"bench-session","transcript_path":"%s/t.jsonl","cwd":"%s","permission_mode":"default",`+
		`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la","description":"list"},"tool_use_id":"toolu_1"}`, tmp, project))
	env := []string{"XDG_STATE_HOME=" + filepath.Join(tmp, "state"), "XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"), "HOME=" + tmp}
	post := []byte(fmt.Sprintf(`{"session_id":"bench-session","transcript_path":"%s/t.jsonl","cwd":"%s","permission_mode":"default",`+
		`"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make","description":"build"},`+
		`"tool_response":{"stdout":"","stderr":"","interrupted":false},"tool_use_id":"toolu_none"}`, tmp, project))
	targets := []*target{
		{name: "floor: bare Go process, fixed answer", argv: []string{bare}},
		{name: "floor: + 1 bbolt commit (fsync), no validator", argv: []string{bare, "-commit-db", filepath.Join(tmp, "floor-bare.db")}},
		{name: "floor: + perm-peer's schemas package + 1 commit (fsync)", argv: []string{full, "-commit-db", filepath.Join(tmp, "floor.db")}},
		{name: "perm-peer hook claude-code (PreToolUse, allow, audited)", argv: []string{peer, "hook", "claude-code"}, env: env},
		// where the hook's time goes: its process start (runtime, package
		// inits) without any decision, store or answer
		{name: "  of which start-up: perm-peer hook refusing unreadable input", argv: []string{peer, "hook", "claude-code"}, env: env,
			input: []byte("-"), fails: true},
		{name: "perm-peer hook claude-code (PostToolUse, nothing pending)", argv: []string{peer, "hook", "claude-code"}, env: env, input: post},
	}
	want := map[int][]byte{0: []byte(`"allow"`), 1: []byte(`"allow"`), 2: []byte(`"allow"`), 3: []byte(`"permissionDecision":"allow"`), 4: nil, 5: nil}
	if base != "" {
		// the same three calls by the earlier binary, on a DB of its own
		// (its store format may differ)
		benv := []string{"XDG_STATE_HOME=" + filepath.Join(tmp, "state-base"), "XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"), "HOME=" + tmp}
		for _, t := range targets[3:6] {
			b := *t
			b.name, b.argv, b.env = "base: "+strings.TrimLeft(t.name, " "), append([]string{base}, t.argv[1:]...), benv
			want[len(targets)] = want[3+len(targets)-6]
			targets = append(targets, &b)
		}
	}
	for i := 0; i < n+5; i++ { // the first 5 rounds warm the page cache and create the DBs
		for j, t := range targets {
			in := input
			if t.input != nil {
				in = t.input
			}
			d, err := t.call(in, want[j])
			if err != nil {
				return err
			}
			if i >= 5 {
				t.took = append(t.took, d)
			}
		}
	}
	report(targets)
	fmt.Println(load())
	return nil
}

// machine is the run's date, machine and load line.
func machine() string {
	host, _ := exec.Command("uname", "-srm").Output()
	return fmt.Sprintf("hookcall %s, %s, %d CPUs, %s, %s", time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		strings.TrimSpace(string(host)), runtime.NumCPU(), runtime.Version(), load())
}

// load is the load average now (Linux), or "" where it cannot be read.
func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return "load average " + strings.Join(f[:3], " ")
}

// call runs one hook call and times it from spawn to exit.
func (t *target) call(input, want []byte) (time.Duration, error) {
	cmd := exec.Command(t.argv[0], t.argv[1:]...)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.Stdin = bytes.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if x, ok := err.(*exec.ExitError); ok && t.fails && x.ExitCode() == 2 {
		return took, nil
	}
	if err != nil || t.fails {
		return 0, fmt.Errorf("%s: %v: %s", t.name, err, errb.String())
	}
	if !bytes.Contains(out.Bytes(), want) {
		return 0, fmt.Errorf("%s answered %q", t.name, out.String())
	}
	return took, nil
}

func report(targets []*target) {
	fmt.Printf("one hook call end to end (spawn, decide, answer, exit), %d calls each, interleaved\n", len(targets[0].took))
	fmt.Printf("%-66s %9s %9s %9s\n", "", "p50", "p90", "mean")
	stats := make([][3]time.Duration, len(targets))
	for i, t := range targets {
		stats[i] = summarize(t.took)
		fmt.Printf("%-66s %9s %9s %9s\n", t.name, ms(stats[i][0]), ms(stats[i][1]), ms(stats[i][2]))
	}
	bare, commit := stats[0], stats[1]
	for i := 0; i < 3; i++ {
		fmt.Printf("hook / %s: %.2fx at p50, %.2fx mean\n", targets[i].name, ratio(stats[3][0], stats[i][0]), ratio(stats[3][2], stats[i][2]))
	}
	// the goals of issue 25, each against its floor in this one run (and
	// the earlier binary's, with -base)
	for first := 3; first+3 <= len(stats); first += 3 {
		who := "perm-peer"
		if first > 3 {
			who = "base"
		}
		hook, startup, post := stats[first], stats[first+1], stats[first+2]
		for _, g := range []struct {
			what     string
			got, flr time.Duration
			max      float64
		}{
			{"hook p50 within 1.3x the floor that commits (no validator)", hook[0], commit[0], 1.3},
			{"start-up p50 within 1.5x the bare process", startup[0], bare[0], 1.5},
			{"PostToolUse (nothing pending) p50 within 1.2x the bare process", post[0], bare[0], 1.2},
		} {
			goal := "met"
			if ratio(g.got, g.flr) > g.max {
				goal = "MISSED"
			}
			fmt.Printf("%s goal (%s): %.2fx, %s\n", who, g.what, ratio(g.got, g.flr), goal)
		}
	}
}

func summarize(d []time.Duration) [3]time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return [3]time.Duration{s[len(s)/2], s[len(s)*9/10], sum / time.Duration(len(s))}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
