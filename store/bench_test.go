package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// BenchmarkAppendAudit measures durable decisions per second with 1, 8 and
// 64 appends in flight (each append returns only after its fsync).
func BenchmarkAppendAudit(b *testing.B) {
	for _, inflight := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			db := openTemp(b)
			rec := record("bench", protocol.SourceAuto, "go test ./...")
			var left atomic.Int64
			left.Store(int64(b.N))
			b.ResetTimer()
			var wg sync.WaitGroup
			for range inflight {
				wg.Go(func() {
					for left.Add(-1) >= 0 {
						if _, err := db.AppendAudit(context.Background(), rec); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			b.ReportMetric(float64(b.N)/float64(db.batches.Load()), "records/commit")
			b.ReportMetric(1000*float64(db.writeOpens.Load())/float64(b.N), "write-opens/1k") // lock, open, mmap each
		})
	}
}

// seedAudit writes n records spread over sessions "s0".."s<sessions-1>",
// every tenth one user-sourced, and makes s1 a child of s0. It writes
// through appendRecords in large transactions to keep setup fast.
func seedAudit(b *testing.B, db *DB, n, sessions int) {
	b.Helper()
	require.NoError(b, db.PutSession(protocol.Session{ID: "s1", ParentID: "s0"}))
	const chunk = 5000
	for done := 0; done < n; done += chunk {
		recs := make([]protocol.AuditRecord, min(chunk, n-done))
		for i := range recs {
			j := done + i
			src := protocol.SourceAuto
			if j%10 == 0 {
				src = protocol.SourceUser
			}
			recs[i] = record(fmt.Sprintf("s%d", j%sessions), src, fmt.Sprintf("cmd %d", j))
		}
		require.NoError(b, db.update(func(tx *bolt.Tx) error { return appendEncoded(tx, recs) }))
	}
}

func benchUserReplies(b *testing.B, n int) {
	db := openTemp(b)
	seedAudit(b, db, n, 10)
	got, err := db.UserReplies("s1", 50)
	require.NoError(b, err)
	// s0 holds the user records (every tenth j is ≡ 0 mod 10); s1 inherits them.
	require.Len(b, got, 50)
	for b.Loop() {
		if _, err := db.UserReplies("s1", 50); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUserReplies100k is rule extraction (50 newest user replies of a
// session and its parent) with 100k records in the audit.
func BenchmarkUserReplies100k(b *testing.B) { benchUserReplies(b, 100_000) }

// BenchmarkUserReplies1k is the same query on a 1k-record audit: the two
// should cost about the same.
func BenchmarkUserReplies1k(b *testing.B) { benchUserReplies(b, 1_000) }

// BenchmarkSessionRead is the smallest read: its time is almost all the
// per-transaction cost of taking the lock and opening the bbolt file.
func BenchmarkSessionRead(b *testing.B) {
	db := openTemp(b)
	seedAudit(b, db, 10_000, 10)
	for b.Loop() {
		if _, err := db.Session("s1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendAuditTwoProcesses is BenchmarkAppendAudit split over two
// OS processes sharing the file (two editor windows), each with half the
// requests in flight. Process start-up is inside the timing.
func BenchmarkAppendAuditTwoProcesses(b *testing.B) {
	for _, inflight := range []int{8, 64} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "p.db")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			half := max(1, b.N/2)
			b.ResetTimer()
			children := []*child{
				startChild(b, ctx, path, "proc-a", half, inflight/2),
				startChild(b, ctx, path, "proc-b", half, inflight/2),
			}
			for _, c := range children {
				c.start(b)
			}
			n := 0
			for _, c := range children {
				n += len(c.readIDs(0))
				require.NoError(b, c.cmd.Wait())
			}
			b.StopTimer()
			require.Equal(b, 2*half, n)
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "decisions/s")
		})
	}
}

// BenchmarkBoltCommit is the floor under AppendAudit: a one-key durable
// bbolt Update on a file kept open, in the same kind of temp dir. Compare
// it with BenchmarkAppendAudit/inflight=1 from the same run.
func BenchmarkBoltCommit(b *testing.B) {
	bdb, err := bolt.Open(filepath.Join(b.TempDir(), "commit.db"), 0o600, nil)
	require.NoError(b, err)
	defer bdb.Close()
	v := make([]byte, 400) // about one audit record
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		err := bdb.Update(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("k"))
			if err != nil {
				return err
			}
			return bk.Put(seqKey(uint64(i)), v)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeRecord is the caller's share of an append: a fast-path
// record encoded and canonicalized, then spliced with its id, time, prev
// and hash as the transaction does.
func BenchmarkEncodeRecord(b *testing.B) {
	rec := record("bench", protocol.SourceAuto, "git status")
	rec.Reasons = []protocol.Reason{{Code: "gate.safe", Detail: "git status only reads"}}
	rec.Resources = []string{"/work/app"}
	b.ReportAllocs()
	for b.Loop() {
		enc, err := encodeRecord(rec)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := enc.bytes("42", "2026-11-30T00:00:00.000000001Z", "ab12", "cd34"); err != nil {
			b.Fatal(err)
		}
	}
}
