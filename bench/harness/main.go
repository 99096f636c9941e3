package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/perm-peer/perm-peer/peer"
)

// Targets from issue 7.
const (
	targetColdRatio    = 1.5
	targetCommits      = 1.5 // sequential p50 ≤ echo p50 + 1.5 durable commits
	targetThroughput64 = 1 / 1.3
	targetRSSMB        = 30
	targetGatePerSec   = 50_000
	targetRuleBuild    = 2 * time.Millisecond
)

// Targets from issue 14, each against its floor in the same run.
const (
	targetCPU64          = 50 * time.Microsecond // CPU per decision at 64 in flight
	targetVThroughput64  = 0.6                   // × the validating echo
	targetSeqVsCommit    = 1.10                  // sequential p50 × the echo committing one key
	targetSeqP99         = time.Millisecond
	targetColdVsValidate = 1.2 // cold start × the validating echo
	baseAllocs           = 408 // allocations per decision before issue 14
)

type config struct {
	peerBin, echoBin string
	baseBin          string // an earlier perm-peer, measured beside it ("" none)
	allocs           bool
	validEchoBin     string
	dir              string
	framings         []string
	command          string
	read             string
	cold, seq, hook  int
	pipe             map[int]int
	commits          int
	auditN           int
	ruleRecords      int
}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	var c config
	var framings string
	flag.StringVar(&c.peerBin, "peer", "", "perm-peer binary (default: go build ./cmd/perm-peer)")
	flag.StringVar(&c.baseBin, "base", "", "an earlier perm-peer binary to measure in the same run, for before/after")
	flag.BoolVar(&c.allocs, "allocs", true, "measure allocations per decision with go test -bench (needs the source tree)")
	flag.StringVar(&c.echoBin, "echo", "", "echopeer binary (default: go build ./bench/echopeer)")
	flag.StringVar(&c.validEchoBin, "echo-validate", "", "echopeer built with -tags validate (default: built so)")
	flag.StringVar(&c.dir, "dir", ".", "directory for the temp DBs: must be on the disk being measured, not tmpfs")
	flag.StringVar(&framings, "framings", "ndjson,lsp", "framings to measure")
	flag.StringVar(&c.command, "command", "git status", "the known-safe shell command of the fast path")
	flag.StringVar(&c.read, "read", "", "measure the fast path with a read of this project file instead of -command")
	flag.IntVar(&c.cold, "cold", 15, "cold starts per peer")
	flag.IntVar(&c.seq, "seq", 3000, "sequential decisions per peer and framing")
	flag.IntVar(&c.hook, "hook", 30, "perm-peer check spawns")
	flag.IntVar(&c.commits, "commits", 200, "durable commits timed")
	flag.IntVar(&c.auditN, "audit", 100_000, "audit records seeded for the rule build")
	flag.IntVar(&c.ruleRecords, "rule-records", peer.MaxRuleRecords, "user replies read per rule build (peer.MaxRuleRecords)")
	p1 := flag.Int("pipe1", 1000, "decisions at 1 in flight")
	p8 := flag.Int("pipe8", 3000, "decisions at 8 in flight")
	p64 := flag.Int("pipe64", 6000, "decisions at 64 in flight")
	flag.Parse()
	c.framings = strings.Split(framings, ",")
	c.pipe = map[int]int{1: *p1, 8: *p8, 64: *p64}
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(c config, stdout io.Writer) error {
	work, err := os.MkdirTemp(c.dir, "perm-peer-bench-")
	if err != nil {
		return fmt.Errorf("temp dir in %s: %w", c.dir, err)
	}
	work, _ = filepath.Abs(work)
	defer os.RemoveAll(work)
	for _, b := range []struct {
		bin       *string
		pkg, tags string
	}{{&c.peerBin, "./cmd/perm-peer", ""}, {&c.echoBin, "./bench/echopeer", ""}, {&c.validEchoBin, "./bench/echopeer", "validate"}, {&c.baseBin, "", ""}} {
		if *b.bin == "" && b.pkg == "" {
			continue // no base binary
		}
		if *b.bin != "" {
			// Absolute: some spawns run in the project directory.
			abs, err := filepath.Abs(*b.bin)
			if err != nil {
				return fmt.Errorf("binary %s: %w", *b.bin, err)
			}
			*b.bin = abs
			continue
		}
		*b.bin = filepath.Join(work, filepath.Base(b.pkg)+b.tags)
		slog.Info("build", "pkg", b.pkg, "tags", b.tags)
		cmd := exec.Command("go", "build", "-tags", b.tags, "-o", *b.bin, b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as `make build` does
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w\n%s", b.pkg, err, out)
		}
	}
	project := filepath.Join(work, "project")
	home := filepath.Join(work, "home")
	for _, d := range []string{filepath.Join(project, "src"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte("bench\n"), 0o644); err != nil {
		return err
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(work, "cfg"),
		"XDG_STATE_HOME="+filepath.Join(work, "state"), "HOME="+home)
	peer := side{name: "perm-peer", bin: c.peerBin, checkMe: true,
		args: []string{"serve", "--project", project, "--policy", filepath.Join(work, "none.json"), "--home", home},
		dbPath: func(tag string) []string {
			return []string{"--db", filepath.Join(work, "peer-"+tag+".db")}
		}}
	echo := side{name: "echopeer", bin: c.echoBin, dbPath: func(string) []string { return nil }}
	// The same floor committing one key durably before each reply: the least
	// that "audit before reply" can cost over the same pipes.
	echoCommit := side{name: "echopeer --commit-db", bin: c.echoBin, dbPath: func(tag string) []string {
		return []string{"--commit-db", filepath.Join(work, "echo-"+tag+".db")}
	}}
	// The floor that also validates params with the validator SPEC §4
	// mandates: what no conforming peer can skip, linked and run.
	validEcho := side{name: "echopeer -tags validate", bin: c.validEchoBin, dbPath: func(string) []string { return nil }}
	base := peer
	base.name, base.bin = "perm-peer (base)", c.baseBin
	validEchoCommit := side{name: "echopeer -tags validate --commit-db", bin: c.validEchoBin, dbPath: func(tag string) []string {
		return []string{"--commit-db", filepath.Join(work, "vecho-"+tag+".db")}
	}}

	t := &table{}
	t.header = machine(work)
	loadBefore := loadAvg()

	call, callName := shellCall(c.command), fmt.Sprintf("bash %q", c.command)
	if c.read != "" {
		call, callName = readCall(c.read), fmt.Sprintf("read %q", c.read)
	}
	for fi, fr := range c.framings {
		slog.Info("cold start", "framing", fr)
		pc, err := coldStart(peer, env, fr, project, c.cold)
		if err != nil {
			return err
		}
		ec, err := coldStart(echo, env, fr, project, c.cold)
		if err != nil {
			return err
		}
		slog.Info("serve", "framing", fr)
		ps, err := serveRun(peer, env, fr, project, call, c.seq, c.pipe)
		if err != nil {
			return err
		}
		es, err := serveRun(echo, env, fr, project, call, c.seq, c.pipe)
		if err != nil {
			return err
		}
		ecs, err := serveRun(echoCommit, env, fr, project, call, c.seq, c.pipe)
		if err != nil {
			return err
		}
		vc, err := coldStart(validEcho, env, fr, project, c.cold)
		if err != nil {
			return err
		}
		vs, err := serveRun(validEcho, env, fr, project, call, c.seq, c.pipe)
		if err != nil {
			return err
		}
		vcs, err := serveRun(validEchoCommit, env, fr, project, call, c.seq, c.pipe)
		if err != nil {
			return err
		}
		var bc []time.Duration
		var bs served
		if c.baseBin != "" {
			slog.Info("base", "framing", fr)
			if bc, err = coldStart(base, env, fr, project, c.cold); err != nil {
				return err
			}
			if bs, err = serveRun(base, env, fr, project, call, c.seq, c.pipe); err != nil {
				return err
			}
		}
		if fi == 0 {
			slog.Info("durable commit")
			commit, err := boltCommit(work, c.commits)
			if err != nil {
				return err
			}
			appendCost, err := storeAppend(work, c.commits)
			if err != nil {
				return err
			}
			t.commit = commit
			t.row("durable bbolt commit (median)", dur(commit), "", "", "the unit of the latency target", "")
			t.row("store.AppendAudit, 1 in flight (median)", dur(appendCost), "", ratio(float64(appendCost)/float64(commit))+" commit", "", "")
		}
		t.section(fmt.Sprintf("framing %s, fast-path call: %s", fr, callName))
		pcm, ecm := median(pc), median(ec)
		r := float64(pcm) / float64(ecm)
		t.row(fmt.Sprintf("cold start, spawn → initialize reply (median of %d)", c.cold), dur(pcm), dur(ecm), ratio(r),
			fmt.Sprintf("≤ %.1f× echo", targetColdRatio), verdict(r <= targetColdRatio))
		budget := es.seqP50 + time.Duration(targetCommits*float64(t.commit))
		t.row(fmt.Sprintf("sequential decision p50 (%d)", c.seq), dur(ps.seqP50), dur(es.seqP50),
			ratio(float64(ps.seqP50)/float64(es.seqP50)), "≤ echo + 1.5 commits = "+dur(budget), verdict(ps.seqP50 <= budget))
		t.row("sequential decision p99", dur(ps.seqP99), dur(es.seqP99), ratio(float64(ps.seqP99)/float64(es.seqP99)), "", "")
		t.row("sequential p50 vs echo committing one key per request", dur(ps.seqP50), dur(ecs.seqP50),
			ratio(float64(ps.seqP50)/float64(ecs.seqP50)), "(floor for audit before reply)", "")
		for _, n := range []int{1, 8, 64} {
			r := ps.throughput[n] / es.throughput[n]
			target, res := "", ""
			if n == 64 {
				target, res = fmt.Sprintf("≥ %.2f of echo", targetThroughput64), verdict(r >= targetThroughput64)
			}
			t.row(fmt.Sprintf("throughput, %d in flight (%d decisions)", n, c.pipe[n]), rate(ps.throughput[n]), rate(es.throughput[n]), fmt.Sprintf("%.2f", r), target, res)
		}
		vcm := median(vc)
		t.row("  the echo validating params (SPEC §4's validator), cold start", dur(vcm), dur(ecm), ratio(float64(vcm)/float64(ecm)),
			"the floor of the cold-start target", floorVerdict(float64(vcm)/float64(ecm) <= targetColdRatio))
		t.row("  the echo validating params and committing one key, sequential p50", dur(vcs.seqP50), dur(es.seqP50),
			ratio(float64(vcs.seqP50)/float64(es.seqP50)), "the floor of the p50 target", floorVerdict(vcs.seqP50 <= budget))
		vr := vs.throughput[64] / es.throughput[64]
		t.row("  the echo validating params, 64 in flight", rate(vs.throughput[64]), rate(es.throughput[64]), fmt.Sprintf("%.2f", vr),
			"the floor of the 64-in-flight target", floorVerdict(vr >= targetThroughput64))
		rss := float64(ps.rssKB) / 1024
		t.row(fmt.Sprintf("VmRSS after %d decisions", ps.decisions), mb(ps.rssKB), mb(es.rssKB), ratio(float64(ps.rssKB)/float64(es.rssKB)),
			fmt.Sprintf("≤ %d MB", targetRSSMB), verdict(rss <= targetRSSMB))
		t.row("VmHWM (peak RSS)", mb(ps.hwmKB), mb(es.hwmKB), ratio(float64(ps.hwmKB)/float64(es.hwmKB)), "", "")
		issue14Rows(t, fr, issue14{peer: ps, echoCommit: ecs, validEcho: vs, base: bs,
			cold: median(pc), validCold: median(vc), baseCold: median(bc), hasBase: c.baseBin != ""})
		if fi == 0 {
			t.seqP50 = ps.seqP50
		}
	}
	if c.allocs {
		slog.Info("allocations per decision")
		a, err := allocsPerDecision()
		if err != nil {
			return err
		}
		t.row("allocations per decision (BenchmarkServePipelined, in process)", fmt.Sprintf("%.0f", a), "", ratio(a/baseAllocs)+" of 408 before",
			"≤ ⅓ of 408", verdict(a <= baseAllocs/3.0))
	}

	t.section("other ways and parts")
	slog.Info("hook per call")
	hd, code, err := hookPerCall(c.peerBin, project, env, c.command, c.hook)
	if err != nil {
		return err
	}
	hp50 := median(hd)
	t.row(fmt.Sprintf("hook per call: perm-peer check -- %q, p50 (exit %d)", c.command, code), dur(hp50), "",
		ratio(float64(hp50)/float64(t.seqP50))+" served p50", "", "")
	slog.Info("gate rate")
	gr, err := gateRate(project, home, 2*time.Second)
	if err != nil {
		return err
	}
	t.row(fmt.Sprintf("gate.Analyze, %d typical commands, 1 core", len(typicalCommands)), rate(gr), "", "",
		fmt.Sprintf("≥ %dk/s", targetGatePerSec/1000), verdict(gr >= targetGatePerSec))
	slog.Info("rule build", "records", c.auditN)
	rb, err := ruleBuild(work, c.auditN, c.ruleRecords, 50)
	if err != nil {
		return err
	}
	t.row(fmt.Sprintf("per-turn rule build at %dk audit records, %d replies read (median)", c.auditN/1000, c.ruleRecords), dur(rb), "", "",
		"≤ "+dur(targetRuleBuild), verdict(rb <= targetRuleBuild))
	// The run is only as good as the machine was quiet: measure the commit
	// again and say so when the disk or the load changed under us.
	commitAfter, err := boltCommit(filepath.Join(work, "project"), c.commits)
	if err != nil {
		return err
	}
	t.footer = fmt.Sprintf("noise: durable commit %s at the start, %s at the end; load average %s → %s",
		dur(t.commit), dur(commitAfter), loadBefore, loadAvg())
	if r := float64(commitAfter) / float64(t.commit); r > 2 || r < 0.5 {
		t.footer += "\nWARNING: the disk's fsync cost changed more than 2× during the run; latency and throughput rows are unreliable, run again on a quiet machine"
	}
	t.print(stdout)
	return nil
}

// loadAvg is the 1-minute load average, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// table is the report: a header and aligned rows.
type table struct {
	header string
	footer string
	rows   [][]string
	commit time.Duration
	seqP50 time.Duration
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }
func (t *table) section(name string) { t.rows = append(t.rows, []string{"# " + name}) }

func (t *table) print(w io.Writer) {
	fmt.Fprintln(w, t.header)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tperm-peer\techo\tratio\ttarget\tresult")
	for _, r := range t.rows {
		if len(r) == 1 {
			fmt.Fprintln(tw, r[0]+"\t\t\t\t\t")
			continue
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	if t.footer != "" {
		fmt.Fprintln(w, t.footer)
	}
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// floorVerdict says whether a floor itself meets a target: if it does not,
// no peer that must do the floor's work can.
func floorVerdict(ok bool) string {
	if ok {
		return "reachable"
	}
	return "out of reach"
}

func ratio(r float64) string { return fmt.Sprintf("%.2f×", r) }
func rate(r float64) string  { return fmt.Sprintf("%.0f/s", r) }
func mb(kb int) string       { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

func dur(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}

// machine describes the run: date, machine, and the disk the DBs are on.
func machine(work string) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	uname, _ := exec.Command("uname", "-srm").Output()
	return fmt.Sprintf("perm-peer bench %s\nmachine: %s, %d CPUs, %s, %s\nDBs in: %s (%s)",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimSpace(string(uname)), runtime.NumCPU(), cpu,
		runtime.Version(), work, fsInfo(work))
}

// fsInfo names the filesystem of dir and whether it is the repo's device.
func fsInfo(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "unknown filesystem"
	}
	names := map[int64]string{0xEF53: "ext4", 0x01021994: "tmpfs", 0x9123683E: "btrfs", 0x58465342: "xfs",
		0x794C7630: "overlayfs", 0x2FC12FC1: "zfs", 0x6969: "nfs", 0x858458f6: "ramfs"}
	fs, ok := names[int64(st.Type)]
	if !ok {
		fs = fmt.Sprintf("fs type 0x%x", st.Type)
	}
	same := "not the repo's device"
	var a, b syscall.Stat_t
	if syscall.Stat(dir, &a) == nil && syscall.Stat(".", &b) == nil && a.Dev == b.Dev {
		same = "same device as the repo"
	}
	if slices.Contains([]string{"tmpfs", "ramfs"}, fs) {
		same += "; WARNING: memory-backed, fsync costs nothing here"
	}
	return fs + ", " + same
}

// issue14 is one framing's figures for the issue-14 rows.
type issue14 struct {
	peer, echoCommit, validEcho, base served
	cold, validCold, baseCold         time.Duration
	hasBase                           bool
}

// issue14Rows are issue 14's targets, each beside its floor (and the base
// binary's figure, when measured) from this run.
func issue14Rows(t *table, fr string, m issue14) {
	t.section(fmt.Sprintf("issue 14 targets, framing %s (echo column: the floor; base: %s)", fr, map[bool]string{true: "in the target column", false: "not measured"}[m.hasBase]))
	before := func(s string) string {
		if m.hasBase {
			return "base " + s + "; "
		}
		return ""
	}
	t.row("CPU per decision, 64 in flight (peer's utime+stime)", dur(m.peer.cpu64), dur(m.validEcho.cpu64),
		ratio(float64(m.peer.cpu64)/float64(m.validEcho.cpu64)), before(dur(m.base.cpu64))+"≤ "+dur(targetCPU64), verdict(m.peer.cpu64 <= targetCPU64))
	r := m.peer.throughput[64] / m.validEcho.throughput[64]
	t.row("throughput, 64 in flight, vs the validating echo", rate(m.peer.throughput[64]), rate(m.validEcho.throughput[64]), fmt.Sprintf("%.2f", r),
		before(fmt.Sprintf("%.2f", m.base.throughput[64]/m.validEcho.throughput[64]))+fmt.Sprintf("≥ %.2f", targetVThroughput64), verdict(r >= targetVThroughput64))
	r = float64(m.peer.seqP50) / float64(m.echoCommit.seqP50)
	t.row("sequential p50 vs the echo committing one key", dur(m.peer.seqP50), dur(m.echoCommit.seqP50), ratio(r),
		before(ratio(float64(m.base.seqP50)/float64(m.echoCommit.seqP50)))+fmt.Sprintf("≤ %.2f×", targetSeqVsCommit), verdict(r <= targetSeqVsCommit))
	t.row("sequential p99 (floor: the echo committing one key)", dur(m.peer.seqP99), dur(m.echoCommit.seqP99),
		ratio(float64(m.peer.seqP99)/float64(m.echoCommit.seqP99)), before(dur(m.base.seqP99))+"≤ "+dur(targetSeqP99), verdict(m.peer.seqP99 <= targetSeqP99))
	r = float64(m.cold) / float64(m.validCold)
	t.row("cold start vs the validating echo", dur(m.cold), dur(m.validCold), ratio(r),
		before(ratio(float64(m.baseCold)/float64(m.validCold)))+fmt.Sprintf("≤ %.1f×", targetColdVsValidate), verdict(r <= targetColdVsValidate))
	t.row("peak RSS (VmHWM)", mb(m.peer.hwmKB), mb(m.validEcho.hwmKB), ratio(float64(m.peer.hwmKB)/float64(m.validEcho.hwmKB)),
		before(mb(m.base.hwmKB))+fmt.Sprintf("≤ %d MB", targetRSSMB), verdict(float64(m.peer.hwmKB)/1024 <= targetRSSMB))
}

// allocsPerDecision runs the in-process pipelined benchmark of ./peer with
// -benchmem and returns its allocs/op.
func allocsPerDecision() (float64, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkServePipelined$", "-benchmem", "-benchtime", "20000x", "./peer/")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("go test -bench: %w\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		for i := 1; i < len(f); i++ {
			if f[i] == "allocs/op" {
				var a float64
				if _, err := fmt.Sscan(f[i-1], &a); err == nil {
					return a, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("no allocs/op in:\n%s", out)
}
