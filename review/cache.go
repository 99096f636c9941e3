package review

import (
	"strconv"
	"sync"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// A Reviewer that lives as long as a web server reads the same logs again
// and again. Decoding a record is most of what reading the log costs
// (~20 µs each: 10 000 records are 200 ms), and records never change once
// written (append-only, hash-chained), so with Config.KeepDecoded it keeps
// each project's decoded records and reads only the ones appended since.
//
// The cache is checked against the file on every call: the newest record's
// id and hash must be the cached ones, or the records after them must chain
// onto the cached head (prev = its hash); anything else (a replaced or
// rewritten file) drops the project's cache and reads it afresh.

// keepMax bounds the records kept per project; a longer log is read from
// its file on every call, as without the cache.
const keepMax = 200_000

type recordCache struct {
	mu   sync.Mutex
	logs map[string][]protocol.AuditRecord // by DB path, oldest first
}

// records returns p's records oldest first, or nil when they are not kept
// (the log is longer than keepMax). The slice is shared: read only.
func (c *recordCache) records(db *store.DB, path string) ([]protocol.AuditRecord, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	newest, _, err := db.AuditNewest("", 1)
	if err != nil {
		return nil, err
	}
	kept := c.logs[path]
	if len(newest) == 0 {
		delete(c.logs, path)
		return []protocol.AuditRecord{}, nil
	}
	head := newest[0]
	after, prev := "", ""
	if n := len(kept); n > 0 {
		last := kept[n-1]
		switch {
		case last.ID == head.ID && last.Hash == head.Hash:
			return kept, nil
		case seq(last.ID) < seq(head.ID):
			after, prev = last.ID, last.Hash
		default:
			kept = nil
		}
	}
	for {
		recs, next, err := db.Audit(store.AuditQuery{After: after, Limit: store.MaxAuditLimit})
		if err != nil {
			return nil, err
		}
		if prev != "" && len(recs) > 0 && recs[0].Prev != prev {
			// not the log that was kept: read it all again
			kept, after, prev = nil, "", ""
			continue
		}
		kept = append(kept, recs...)
		if len(kept) > keepMax {
			delete(c.logs, path)
			return nil, nil
		}
		if next == "" {
			break
		}
		after, prev = next, ""
	}
	c.logs[path] = kept
	return kept, nil
}

func seq(id string) uint64 {
	n, _ := strconv.ParseUint(id, 10, 64)
	return n
}

// newestFirst calls fn with p's records newest first until fn returns
// false: from the cache when the Reviewer keeps one, else page by page
// from the file.
func (r *Reviewer) newestFirst(db *store.DB, p Project, fn func(protocol.AuditRecord) bool) error {
	if r.cache != nil {
		recs, err := r.cache.records(db, p.DBPath)
		if err != nil {
			return err
		}
		if recs != nil {
			for i := len(recs) - 1; i >= 0; i-- {
				if !fn(recs[i]) {
					return nil
				}
			}
			return nil
		}
	}
	before := ""
	for {
		recs, next, err := db.AuditNewest(before, 1000)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if !fn(rec) {
				return nil
			}
		}
		if next == "" {
			return nil
		}
		before = next
	}
}
