package ui

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/review"
	"github.com/perm-peer/perm-peer/store"
)

// source is where the pages read and act: the review loop over every
// project's DB (package review), plus the store's own grants and chain
// check. Every DB open waits at most the lock timeout, so a DB another
// process holds makes a page say so, never hang.
type source struct {
	r           *review.Reviewer
	lockTimeout time.Duration

	mu       sync.Mutex
	verified map[string]verified // by DB path: the last chain check
}

func newSource(r *review.Reviewer, lockTimeout time.Duration) *source {
	return &source{r: r, lockTimeout: lockTimeout, verified: make(map[string]verified)}
}

// errNotFound and errRefused let handlers pick a status.
var (
	errNotFound = errors.New("not found")
	errRefused  = errors.New("refused")
)

func statusOf(err error) int {
	switch {
	case errors.Is(err, errNotFound), errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, store.ErrLocked):
		return http.StatusServiceUnavailable
	case errors.Is(err, errRefused):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// project finds a project by its DB hash.
func (s *source) project(hash string) (review.Project, error) {
	ps, err := s.r.Projects()
	if err != nil {
		return review.Project{}, err
	}
	for _, p := range ps {
		if p.Hash == hash {
			return p, nil
		}
	}
	return review.Project{}, fmt.Errorf("no project with database %q: %w", hash, errNotFound)
}

// openDB opens a project's existing DB; it never creates one.
func (s *source) openDB(p review.Project) (*store.DB, error) {
	if _, err := os.Stat(p.DBPath); err != nil {
		return nil, fmt.Errorf("project %s: %w", p.Root, errNotFound)
	}
	return store.Open(p.DBPath, store.Options{LockTimeout: s.lockTimeout})
}

// agents are the agents seen in the entries, for the filter.
func agentsOf(entries []review.Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if e.Agent != "" && !seen[e.Agent] {
			seen[e.Agent] = true
			out = append(out, e.Agent)
		}
	}
	return out
}

// grant is one grant in its project.
type grant struct {
	protocol.Grant
	Project review.Project
}

func (s *source) grants() ([]grant, error) {
	ps, err := s.r.Projects()
	if err != nil {
		return nil, err
	}
	var out []grant
	var errs []error
	for _, p := range ps {
		gs, err := s.projectGrants(p)
		if err != nil {
			errs = append(errs, err)
		}
		for _, g := range gs {
			out = append(out, grant{Grant: g, Project: p})
		}
	}
	return out, errors.Join(errs...)
}

func (s *source) projectGrants(p review.Project) ([]protocol.Grant, error) {
	db, err := s.openDB(p)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.Grants()
}

// revoke deletes grant id of the project with DB hash, as `perm-peer
// grants revoke ID` does; it returns the grant's pattern.
func (s *source) revoke(hash, id string) (string, error) {
	p, err := s.project(hash)
	if err != nil {
		return "", err
	}
	db, err := s.openDB(p)
	if err != nil {
		return "", err
	}
	defer db.Close()
	gs, err := db.Grants()
	if err != nil {
		return "", err
	}
	pattern := ""
	for _, g := range gs {
		if g.ID == id {
			pattern = g.Pattern
		}
	}
	if err := db.RevokeGrant(id); err != nil {
		return "", fmt.Errorf("revoke grant %s of %s: %w", id, p.Root, err)
	}
	return pattern, nil
}

// projectStatus is one project's chain check, size and last activity.
type projectStatus struct {
	review.Project
	Records int
	Last    string // the newest record's ts
	Err     error  // the chain (or the file) is not sound
}

func (s *source) projectStatus() ([]projectStatus, error) {
	ps, err := s.r.Projects()
	if err != nil {
		return nil, err
	}
	out := make([]projectStatus, 0, len(ps))
	for _, p := range ps {
		out = append(out, s.verify(p))
	}
	return out, nil
}

// verify checks p's chain, as `perm-peer audit verify` does. Verifying
// reads and hashes every record, so the result is kept while the file is
// unchanged: same size, same modification time, same newest record. Any
// write to the file, an append or an edit, changes its modification time.
func (s *source) verify(p review.Project) projectStatus {
	st := projectStatus{Project: p}
	db, err := s.openDB(p)
	if err != nil {
		st.Err = err
		return st
	}
	defer db.Close()
	recs, _, err := db.AuditNewest("", 1)
	if err != nil {
		st.Err = err
		return st
	}
	key := verifyKey{}
	if fi, err := os.Stat(p.DBPath); err == nil {
		key = verifyKey{size: fi.Size(), mtime: fi.ModTime()}
	}
	if len(recs) == 1 {
		st.Last = recs[0].TS
		key.head = recs[0].Hash
	}
	s.mu.Lock()
	v, ok := s.verified[p.DBPath]
	s.mu.Unlock()
	if ok && v.key == key && !key.mtime.IsZero() {
		st.Records, st.Err = v.records, v.err
		return st
	}
	st.Records, st.Err = db.VerifyAudit()
	s.mu.Lock()
	s.verified[p.DBPath] = verified{key: key, records: st.Records, err: st.Err}
	s.mu.Unlock()
	return st
}

type verifyKey struct {
	size  int64
	mtime time.Time
	head  string
}

type verified struct {
	key     verifyKey
	records int
	err     error
}
