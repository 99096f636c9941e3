package store

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// Child mode: the test binary re-executed with these variables set appends
// records to a store and prints each id on its own line only after
// AppendAudit returned, i.e. after the record is durable.
const (
	envChild   = "PERM_PEER_STORE_CHILD" // session id to append under
	envDB      = "PERM_PEER_STORE_DB"
	envCount   = "PERM_PEER_STORE_COUNT" // records to append; 0 = until killed
	envWorkers = "PERM_PEER_STORE_WORKERS"
)

func TestMain(m *testing.M) {
	if session := os.Getenv(envChild); session != "" {
		os.Exit(runChild(session))
	}
	os.Exit(m.Run())
}

func runChild(session string) int {
	count, _ := strconv.Atoi(os.Getenv(envCount))
	workers, _ := strconv.Atoi(os.Getenv(envWorkers))
	db, err := Open(os.Getenv(envDB), Options{LockTimeout: 20 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer db.Close()
	// Start together with the other processes: wait for the parent's "go".
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Fprintln(os.Stderr, "child: read go:", err)
		return 3
	}
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				if count > 0 && next >= count {
					mu.Unlock()
					return
				}
				next++
				i := next
				mu.Unlock()
				r, err := db.AppendAudit(context.Background(), record(session, protocol.SourceUser, fmt.Sprintf("%s %d", session, i)))
				mu.Lock()
				if err != nil {
					fmt.Fprintln(os.Stderr, "child:", err)
					failed = true
					mu.Unlock()
					return
				}
				// One write per line, so a kill never leaves half an id counted.
				os.Stdout.WriteString(r.ID + "\n")
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if failed {
		return 1
	}
	return 0
}

// child is a running helper process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startChild(t testing.TB, ctx context.Context, db, session string, count, workers int) *child {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envChild+"="+session, envDB+"="+db,
		envCount+"="+strconv.Itoa(count), envWorkers+"="+strconv.Itoa(workers))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	return &child{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
}

func (c *child) start(t testing.TB) {
	t.Helper()
	_, err := io.WriteString(c.stdin, "go\n")
	require.NoError(t, err)
	require.NoError(t, c.stdin.Close())
}

// readIDs reads complete lines until EOF or until n ids (n > 0) were read.
func (c *child) readIDs(n int) []string {
	var out []string
	for n <= 0 || len(out) < n {
		line, err := c.out.ReadString('\n')
		if err != nil {
			break // EOF; a trailing fragment without newline is not an id
		}
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	return out
}

func TestTwoProcessesShareOneDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const each = 300
	a := startChild(t, ctx, path, "proc-a", each, 8)
	b := startChild(t, ctx, path, "proc-b", each, 8)
	a.start(t)
	b.start(t)

	// This process appends too, through its own store on the same file.
	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer db.Close()
	for i := range 50 {
		_, err := db.AppendAudit(ctx, record("parent", protocol.SourceAuto, fmt.Sprint(i)))
		require.NoError(t, err)
	}

	var idsA, idsB []string
	var wg sync.WaitGroup
	wg.Go(func() { idsA = a.readIDs(0) })
	wg.Go(func() { idsB = b.readIDs(0) })
	wg.Wait()
	require.NoError(t, a.cmd.Wait())
	require.NoError(t, b.cmd.Wait())
	require.Len(t, idsA, each)
	require.Len(t, idsB, each)

	n, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, 2*each+50, n)

	for _, tc := range []struct {
		session string
		printed []string
	}{{"proc-a", idsA}, {"proc-b", idsB}} {
		recs, _, err := db.Audit(AuditQuery{SessionID: tc.session, Limit: 1000})
		require.NoError(t, err)
		assert.ElementsMatch(t, tc.printed, ids(recs), tc.session)
	}
	// The processes really ran at the same time: their records interleave.
	first := func(s []string) int { v, _ := strconv.Atoi(s[0]); return v }
	last := func(s []string) int { v, _ := strconv.Atoi(s[len(s)-1]); return v }
	recsA, _, _ := db.Audit(AuditQuery{SessionID: "proc-a", Limit: 1000})
	recsB, _, _ := db.Audit(AuditQuery{SessionID: "proc-b", Limit: 1000})
	assert.True(t, first(ids(recsA)) < last(ids(recsB)) && first(ids(recsB)) < last(ids(recsA)),
		"records of the two processes interleave: a=[%d..%d] b=[%d..%d]",
		first(ids(recsA)), last(ids(recsA)), first(ids(recsB)), last(ids(recsB)))
}

// TestCrashKeepsEveryAcknowledgedRecord kills an appending process with
// SIGKILL mid-stream, again and again on one file: every id it printed (its
// AppendAudit had returned) must be in the log, and the chain must verify.
func TestCrashKeepsEveryAcknowledgedRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	// Bounded in count and in time: up to 20 rounds, no new round after the
	// budget is spent (a loaded machine runs fewer), at least 3.
	const maxRounds, minRounds = 20, 3
	budget := time.Now().Add(20 * time.Second)
	total, rounds := 0, 0
	for round := range maxRounds {
		if round >= minRounds && time.Now().After(budget) {
			break
		}
		rounds++
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		c := startChild(t, ctx, path, fmt.Sprintf("crash-%d", round), 0, 8)
		c.start(t)
		// Kill after a varying number of acknowledged appends.
		printed := c.readIDs(5 + (round*37)%120)
		require.NoError(t, c.cmd.Process.Signal(syscall.SIGKILL))
		printed = append(printed, c.readIDs(0)...) // lines already in the pipe
		err := c.cmd.Wait()
		cancel()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		require.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal(), "child died of SIGKILL, not of an error")

		db, err := Open(path, Options{})
		require.NoError(t, err)
		n, err := db.VerifyAudit()
		require.NoError(t, err, "round %d", round)
		require.GreaterOrEqual(t, n, total+len(printed))
		recs, _, err := db.Audit(AuditQuery{SessionID: fmt.Sprintf("crash-%d", round), Limit: MaxAuditLimit})
		require.NoError(t, err)
		stored := map[string]bool{}
		for _, r := range recs {
			stored[r.ID] = true
		}
		for _, id := range printed {
			require.True(t, stored[id], "round %d: acknowledged record %s lost", round, id)
		}
		total = n
		require.NoError(t, db.Close())
	}
	t.Logf("%d rounds, %d records survived", rounds, total)
}

// TestCompactWhileOtherProcessesAppend is why the lock lives in a separate
// file: Compact renames a new file over the DB while two other processes
// append, and no acknowledged record may land in the replaced file.
func TestCompactWhileOtherProcessesAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const each = 200
	a := startChild(t, ctx, path, "proc-a", each, 4)
	b := startChild(t, ctx, path, "proc-b", each, 4)
	a.start(t)
	b.start(t)
	var idsA, idsB []string
	finished := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		wg.Go(func() { idsA = a.readIDs(0) })
		wg.Go(func() { idsB = b.readIDs(0) })
		wg.Wait()
		close(finished)
	}()
	compactions := 0
	for running := true; running; {
		select {
		case <-finished:
			running = false
		default:
			require.NoError(t, db.Compact())
			compactions++
		}
	}
	require.NoError(t, a.cmd.Wait())
	require.NoError(t, b.cmd.Wait())
	require.Len(t, idsA, each)
	require.Len(t, idsB, each)
	assert.Positive(t, compactions)

	n, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, 2*each, n)
	recs, _, err := db.Audit(AuditQuery{Limit: 1000})
	require.NoError(t, err)
	assert.ElementsMatch(t, append(idsA, idsB...), ids(recs))
	t.Logf("%d compactions while %d records were appended", compactions, 2*each)
}
