package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// side is one of the two peers measured.
type side struct {
	name    string
	bin     string
	args    []string                  // serve arguments; db is appended per process
	dbPath  func(tag string) []string // the --db argument for a process (nil: none)
	checkMe bool                      // verify that replies come from perm-peer's gate
}

// percentile is the nearest-rank q-quantile of sorted durations.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return percentile(s, 0.5)
}

func initBody(id int, project string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
		"protocolVersion": 1, "clientInfo": map[string]any{"name": "bench"},
		"capabilities": map[string]any{"prompt": false}, "project": map[string]any{"root": project}}})
	return b
}

// decisionBody is one session/requestPermission for the fast-path call; both
// peers receive the same bytes.
func decisionBody(id int, call fastCall) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"session/requestPermission","params":{"sessionId":"bench","turn":1,"toolCall":{"toolCallId":"c`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `",`...)
	b = append(b, call...)
	return append(b, `}}}`...)
}

// fastCall is the toolCall's fields after toolCallId, as JSON object members.
type fastCall []byte

// shellCall is the fast-path call for a shell command.
func shellCall(command string) fastCall {
	cmd, _ := json.Marshal(command)
	return fastCall(`"tool":"bash","kind":"execute","rawInput":{"command":` + string(cmd) + `}`)
}

// readCall is the fast-path call for a file read.
func readCall(path string) fastCall {
	p, _ := json.Marshal(path)
	return fastCall(`"tool":"read","kind":"read","rawInput":{"path":` + string(p) + `}`)
}

// verifyReply fails unless r answers id with once (and, for perm-peer,
// decided by the gate's fast path: the bench must not measure a slow path
// or a rejection by accident).
func verifyReply(r response, id int, fromGate bool) error {
	if r.Error != nil {
		return fmt.Errorf("request %d: error %d %s", id, r.Error.Code, r.Error.Message)
	}
	if string(r.ID) != strconv.Itoa(id) {
		return fmt.Errorf("want reply to %d, got %s (method %q)", id, r.ID, r.Method)
	}
	var res struct {
		Reply string `json:"reply"`
		Meta  struct {
			DecidedBy string `json:"decidedBy"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return fmt.Errorf("request %d: result %s: %w", id, r.Result, err)
	}
	if res.Reply != "once" || (fromGate && res.Meta.DecidedBy != "gate") {
		return fmt.Errorf("request %d: the fast-path call was not fast-pathed: %s", id, r.Result)
	}
	return nil
}

// coldStart spawns the peer n times and times spawn → initialize reply.
func coldStart(s side, env []string, framing, project string, n int) ([]time.Duration, error) {
	var ds []time.Duration
	args := append(slices.Clone(s.args), s.dbPath("cold")...)
	for range n {
		t0 := time.Now()
		p, err := spawn(s.bin, args, env, framing)
		if err != nil {
			return nil, err
		}
		r, err := p.call(initBody(1, project))
		d := time.Since(t0)
		if err == nil && r.Error != nil {
			err = fmt.Errorf("initialize: %s", r.Error.Message)
		}
		if cerr := p.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s cold start: %w", s.name, err)
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// served is what one long-lived process measured.
type served struct {
	seqP50, seqP99 time.Duration
	throughput     map[int]float64 // in flight → decisions/s
	decisions      int
	rssKB, hwmKB   int
	// cpu64 is the process's CPU (user+system, from /proc) per decision
	// over the 64-in-flight series only
	cpu64 time.Duration
}

// serveRun starts one process and runs, in order: a warm-up, the sequential
// latency series, the pipelined series, then reads its memory.
func serveRun(s side, env []string, framing, project string, command fastCall, seq int, pipe map[int]int) (served, error) {
	out := served{throughput: map[int]float64{}}
	p, err := spawn(s.bin, append(slices.Clone(s.args), s.dbPath("serve-"+framing)...), env, framing)
	if err != nil {
		return out, err
	}
	fail := func(err error) (served, error) {
		_ = p.close()
		return out, fmt.Errorf("%s (%s): %w", s.name, framing, err)
	}
	if r, err := p.call(initBody(1, project)); err != nil || r.Error != nil {
		return fail(fmt.Errorf("initialize: %v %v", err, r.Error))
	}
	id := 1
	lat := make([]time.Duration, 0, seq)
	const warm = 200
	for i := range warm + seq {
		id++
		t0 := time.Now()
		r, err := p.call(decisionBody(id, command))
		d := time.Since(t0)
		if err == nil {
			err = verifyReply(r, id, s.checkMe)
		}
		if err != nil {
			return fail(err)
		}
		if i >= warm {
			lat = append(lat, d)
		}
	}
	slices.Sort(lat)
	out.seqP50, out.seqP99 = percentile(lat, 0.50), percentile(lat, 0.99)
	for _, inflight := range []int{1, 8, 64} {
		total := pipe[inflight]
		cpu0, err := p.cpu()
		if err != nil {
			return fail(err)
		}
		el, err := pipelined(p, inflight, total, id+1, command, s.checkMe)
		if err != nil {
			return fail(err)
		}
		if inflight == 64 {
			cpu1, err := p.cpu()
			if err != nil {
				return fail(err)
			}
			out.cpu64 = (cpu1 - cpu0) / time.Duration(total)
		}
		id += total
		out.throughput[inflight] = float64(total) / el.Seconds()
	}
	out.decisions = id - 1
	if out.rssKB, out.hwmKB, err = p.memory(); err != nil {
		return fail(err)
	}
	if err := p.close(); err != nil {
		return out, err
	}
	return out, nil
}

// pipelined keeps inflight requests outstanding until total are answered
// and returns the elapsed time from the first write to the last reply.
func pipelined(p *proc, inflight, total, first int, command fastCall, fromGate bool) (time.Duration, error) {
	sem := make(chan struct{}, inflight)
	werr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	t0 := time.Now()
	go func() {
		for i := range total {
			select {
			case sem <- struct{}{}:
			case <-stop:
				return
			}
			if err := p.write(decisionBody(first+i, command)); err != nil {
				werr <- err
				return
			}
		}
	}()
	seen := make(map[int]bool, total)
	for range total {
		r, err := p.read()
		if err != nil {
			select {
			case e := <-werr:
				return 0, e
			default:
			}
			return 0, err
		}
		id, _ := strconv.Atoi(string(r.ID))
		if id < first || id >= first+total || seen[id] {
			return 0, fmt.Errorf("unexpected or duplicate reply id %s", r.ID)
		}
		seen[id] = true
		if err := verifyReply(r, id, fromGate); err != nil {
			return 0, err
		}
		<-sem
	}
	return time.Since(t0), nil
}

// boltCommit is the median cost of one tiny durable bbolt Update (fsync on
// commit, the file kept open): the floor "audit before reply" cannot beat.
func boltCommit(dir string, n int) (time.Duration, error) {
	path := filepath.Join(dir, "commit.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return 0, fmt.Errorf("open bbolt %s: %w", path, err)
	}
	defer db.Close()
	val := make([]byte, 64)
	ds := make([]time.Duration, 0, n)
	for i := range n {
		t0 := time.Now()
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("bench"))
			if err != nil {
				return err
			}
			return b.Put(binary.BigEndian.AppendUint64(nil, uint64(i)), val)
		})
		if err != nil {
			return 0, fmt.Errorf("bbolt update: %w", err)
		}
		ds = append(ds, time.Since(t0))
	}
	return median(ds), nil
}

// storeAppend is the median cost of one perm-peer audit append with nothing
// else in flight: the store's whole per-transaction path (flock, open,
// commit with fsync, close), one record per commit.
func storeAppend(dir string, n int) (time.Duration, error) {
	db, err := store.Open(filepath.Join(dir, "append.db"), store.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	ds := make([]time.Duration, 0, n)
	for i := range n {
		rec := auditRecord("bench", i, protocol.SourceAuto)
		t0 := time.Now()
		if _, err := db.AppendAudit(context.Background(), rec); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(t0))
	}
	return median(ds), nil
}

func auditRecord(session string, i int, src protocol.Source) protocol.AuditRecord {
	cmd := fmt.Sprintf("go test ./pkg%d/...", i%97)
	in, _ := json.Marshal(map[string]string{"command": cmd})
	rec := protocol.AuditRecord{SessionID: session, Turn: 1 + i/20,
		ToolCall: protocol.ToolCall{ToolCallID: fmt.Sprintf("c%d", i), Tool: "bash", Kind: protocol.KindExecute, RawInput: in},
		Action:   "bash: " + cmd, Resources: []string{"/repo/pkg" + strconv.Itoa(i%97)},
		Decision: protocol.ReplyOnce, DecidedBy: protocol.ByGate, Source: src,
		Reply: protocol.PermissionReply{Reply: protocol.ReplyOnce}, Risk: protocol.RiskLow}
	if src == protocol.SourceUser {
		rec.DecidedBy = protocol.ByUser
		rec.Reply.Feedback = fmt.Sprintf("tests of pkg%d are fine", i%97)
	}
	return rec
}

// hookPerCall spawns `perm-peer check -- COMMAND` n times and returns the
// durations and the exit code of the last run.
func hookPerCall(bin, project string, env []string, command string, n int) ([]time.Duration, int, error) {
	var ds []time.Duration
	code := 0
	for range n {
		cmd := exec.Command(bin, "check", "--cwd", project, "--", command)
		cmd.Env, cmd.Dir = env, project
		t0 := time.Now()
		err := cmd.Run()
		ds = append(ds, time.Since(t0))
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.ExitCode()
		case err != nil:
			return nil, 0, fmt.Errorf("run perm-peer check: %w", err)
		default:
			code = 0
		}
	}
	return ds, code, nil
}

// typicalCalls is a mix of what agents run: fast-path reads and listings,
// builds and tests, edits, compound commands, a floor.
var typicalCommands = []string{
	"git status", "ls -la", "cat README.md", "git diff HEAD~1 -- src/", "grep -rn TODO src",
	"go test ./...", "npm run lint", "find . -name '*.go' -type f", "rg -n 'func main' --type go",
	"git log --oneline -20", "head -50 src/main.go", "wc -l src/*.go", "make build",
	"go build ./... && go vet ./...", "cat package.json | jq .scripts", "echo hello > out.txt",
	"rm -rf build/", "python3 -m pytest tests/ -q", "sed -n '1,80p' src/app.go", "rm -rf /",
}

// gateRate is gate.Analyze calls per second on one core over the typical mix.
func gateRate(project, home string, dur time.Duration) (float64, error) {
	pol, err := gate.LoadPolicy(filepath.Join(home, "none.json"), filepath.Join(project, ".perm-peer", "policy.json"), project)
	if err != nil {
		return 0, fmt.Errorf("load empty policy: %w", err)
	}
	// the directory cache the long-lived peer keeps
	env := gate.Env{Project: project, Cwd: project, Home: home, Policy: pol, Dirs: gate.NewDirCache()}
	calls := make([]protocol.ToolCall, len(typicalCommands))
	for i, c := range typicalCommands {
		in, _ := json.Marshal(map[string]string{"command": c})
		calls[i] = protocol.ToolCall{Tool: "bash", Kind: protocol.KindExecute, RawInput: in}
	}
	prev := runtime.GOMAXPROCS(1) // "per core": no parallel GC help either
	defer runtime.GOMAXPROCS(prev)
	runtime.GC()
	n := 0
	t0 := time.Now()
	for time.Since(t0) < dur {
		for _, c := range calls {
			_ = gate.Analyze(c, env)
		}
		n += len(calls)
	}
	return float64(n) / time.Since(t0).Seconds(), nil
}

// ruleBuild seeds an audit of n records (every tenth user-sourced, spread
// over ten sessions, s1 a subagent of s0) and returns the median time of the
// per-turn user-rule build the peer does on a judge cache miss: the user
// replies of the session and its parent, the grants, extraction, rendering.
func ruleBuild(dir string, n, replies, runs int) (time.Duration, error) {
	db, err := store.Open(filepath.Join(dir, "rules.db"), store.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if err := db.PutSession(protocol.Session{ID: "s1", ParentID: "s0"}); err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 64 { // 64 in flight: group commit keeps seeding fast
		wg.Go(func() {
			for i := w; i < n; i += 64 {
				src := protocol.SourceAuto
				if i%10 == 0 {
					src = protocol.SourceUser
				}
				if _, err := db.AppendAudit(context.Background(), auditRecord(fmt.Sprintf("s%d", i%10), i, src)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, fmt.Errorf("seed audit: %w", err)
	}
	ds := make([]time.Duration, 0, runs)
	for range runs {
		t0 := time.Now()
		recs, err := db.UserReplies("s1", replies)
		if err != nil {
			return 0, err
		}
		grants, err := db.Grants()
		if err != nil {
			return 0, err
		}
		rules := judge.ExtractRules(recs, grants)
		prefix := judge.BuildPrefix(judge.SessionContext{Agent: "bench", Cwd: ".", UserMessage: "fix the tests"}, rules)
		ds = append(ds, time.Since(t0))
		if len(rules) == 0 || len(prefix) == 0 {
			return 0, errors.New("rule build found no rules in the seeded audit")
		}
	}
	return median(ds), nil
}
