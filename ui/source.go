package ui

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// source is where the pages read and act: the project DBs in the state
// directory, through the review loop. It opens each DB once (a store holds
// no file open between transactions) with the caller's lock timeout, so a
// DB another process holds makes a page say so after that long, never hang.
type source struct {
	stateDir    string
	lockTimeout time.Duration

	mu       sync.Mutex
	dbs      map[string]*store.DB // by path
	verified map[string]verified  // by path: the last chain check
}

func newSource(stateDir string, lockTimeout time.Duration) *source {
	return &source{stateDir: stateDir, lockTimeout: lockTimeout, dbs: make(map[string]*store.DB),
		verified: make(map[string]verified)}
}

// entry is one decision in its project.
type entry struct {
	Hash, Root string
	Agent      string
	Rec        protocol.AuditRecord
}

// cursor names the position after which an older page starts; cursors
// order as their entries do (time, then project, then id).
func (e entry) cursor() string {
	var ns int64
	if t, err := time.Parse(time.RFC3339Nano, e.Rec.TS); err == nil {
		ns = t.UnixNano()
	}
	id, _ := strconv.ParseUint(e.Rec.ID, 10, 64)
	return fmt.Sprintf("%019d.%s.%020d", ns, e.Hash, id)
}

// filter selects decisions; the zero value selects all of them.
type filter struct {
	Project  string    // a DB hash
	Agent    string    // exact
	Decision string    // one of decisionFilters, or "asked-or-denied"
	Text     string    // case-insensitive, in the action, input, paths or note
	Since    time.Time // zero: no bound
	Before   string    // an entry's cursor: only entries older than it
}

func (f filter) matches(e entry) bool {
	if f.Agent != "" && e.Agent != f.Agent {
		return false
	}
	if f.Decision != "" && !decisionMatches(f.Decision, e.Rec) {
		return false
	}
	if f.Text != "" && !textMatches(strings.ToLower(f.Text), e.Rec) {
		return false
	}
	return f.Before == "" || e.cursor() < f.Before
}

func decisionMatches(want string, rec protocol.AuditRecord) bool {
	switch want {
	case "allowed":
		return rec.Decision != protocol.ReplyReject
	case "asked":
		return asked(rec)
	case "denied":
		return rec.Decision == protocol.ReplyReject
	case "asked-or-denied":
		return asked(rec) || rec.Decision == protocol.ReplyReject
	}
	return strings.TrimPrefix(want, "allowed-") == strings.TrimSuffix(countKind(rec), "s") && rec.Decision != protocol.ReplyReject
}

func textMatches(lower string, rec protocol.AuditRecord) bool {
	hay := []string{rec.Action, rec.ToolCall.Tool, rec.ToolCall.Title, string(rec.ToolCall.RawInput), rec.Reply.Feedback, rec.Grant}
	hay = append(hay, rec.Resources...)
	for _, h := range hay {
		if strings.Contains(strings.ToLower(h), lower) {
			return true
		}
	}
	return false
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
	return http.StatusInternalServerError
}

// project is one DB in the state directory.
type project struct {
	Hash, Root, Path string
}

// open returns the store of a project, opening it once. A DB is never
// created here: only files the index lists are opened.
func (s *source) open(p project) (*store.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if db, ok := s.dbs[p.Path]; ok {
		return db, nil
	}
	db, err := store.Open(p.Path, store.Options{LockTimeout: s.lockTimeout})
	if err != nil {
		return nil, err
	}
	s.dbs[p.Path] = db
	return db, nil
}

// Close closes every DB opened.
func (s *source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, db := range s.dbs {
		errs = append(errs, db.Close())
	}
	s.dbs = map[string]*store.DB{}
	return errors.Join(errs...)
}

func (s *source) projects() ([]project, error) {
	dbs, err := store.ProjectDBs(s.stateDir)
	if err != nil {
		return nil, err
	}
	out := make([]project, 0, len(dbs))
	for _, d := range dbs {
		out = append(out, project{Hash: d.Hash, Root: d.Root, Path: d.Path})
	}
	return out, nil
}

func (s *source) project(hash string) (project, error) {
	ps, err := s.projects()
	if err != nil {
		return project{}, err
	}
	for _, p := range ps {
		if p.Hash == hash {
			return p, nil
		}
	}
	return project{}, fmt.Errorf("no project with database %q: %w", hash, errNotFound)
}

// facets are the projects and the agents seen, for the filters.
func (s *source) facets() ([]project, []string, error) {
	ps, err := s.projects()
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	var agents []string
	var errs []error
	for _, p := range ps {
		db, err := s.open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sessions, err := db.Sessions()
		if err != nil {
			errs = append(errs, err)
		}
		for _, ss := range sessions {
			if a := ss.Agent; a != "" && !seen[a] {
				seen[a] = true
				agents = append(agents, a)
			}
		}
	}
	sortStrings(agents)
	return ps, agents, errors.Join(errs...)
}

// each calls fn with the decisions f selects, newest first across
// projects, until fn returns false.
func (s *source) each(f filter, fn func(entry) bool) error {
	ps, err := s.projects()
	if err != nil {
		return err
	}
	var heads []*projectLog
	var errs []error
	for _, p := range ps {
		if f.Project != "" && p.Hash != f.Project {
			continue
		}
		db, err := s.open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l := &projectLog{p: p, db: db, since: f.Since}
		if err := l.start(); err != nil {
			errs = append(errs, err)
			continue
		}
		heads = append(heads, l)
	}
	for {
		var newest *projectLog
		for _, l := range heads {
			if l.ok() && (newest == nil || l.head().t.After(newest.head().t)) {
				newest = l
			}
		}
		if newest == nil {
			return errors.Join(errs...)
		}
		e := newest.head().entry
		if err := newest.advance(); err != nil {
			errs = append(errs, err)
		}
		if f.matches(e) && !fn(e) {
			return errors.Join(errs...)
		}
	}
}

// projectLog walks one project's log newest first, a page at a time.
type projectLog struct {
	p      project
	db     *store.DB
	since  time.Time
	agents map[string]string // session id → agent
	page   []timed
	next   string // AuditNewest's before for the following page
	done   bool
}

type timed struct {
	entry
	t time.Time
}

const walkPage = 512

func (l *projectLog) start() error {
	sessions, err := l.db.Sessions()
	if err != nil {
		return err
	}
	l.agents = make(map[string]string, len(sessions))
	for _, ss := range sessions {
		l.agents[ss.ID] = ss.Agent
	}
	return l.fill("")
}

func (l *projectLog) fill(before string) error {
	recs, next, err := l.db.AuditNewest(before, walkPage)
	if err != nil {
		l.done = true
		return err
	}
	l.page = l.page[:0]
	for _, r := range recs {
		t, _ := time.Parse(time.RFC3339Nano, r.TS)
		if !l.since.IsZero() && t.Before(l.since) {
			next = "" // the log is in time order: nothing older matches
			break
		}
		agent := l.agents[r.SessionID]
		if agent == "" && r.ParentSessionID != "" {
			agent = l.agents[r.ParentSessionID]
		}
		l.page = append(l.page, timed{entry: entry{Hash: l.p.Hash, Root: l.p.Root, Agent: agent, Rec: r}, t: t})
	}
	l.next = next
	l.done = len(l.page) == 0
	return nil
}

func (l *projectLog) ok() bool    { return !l.done }
func (l *projectLog) head() timed { return l.page[0] }

func (l *projectLog) advance() error {
	l.page = l.page[1:]
	if len(l.page) > 0 {
		return nil
	}
	if l.next == "" {
		l.done = true
		return nil
	}
	return l.fill(l.next)
}

// grant is one grant in its project.
type grant struct {
	protocol.Grant
	Hash, Root string
}

func (s *source) grants() ([]grant, error) {
	ps, err := s.projects()
	if err != nil {
		return nil, err
	}
	var out []grant
	var errs []error
	for _, p := range ps {
		db, err := s.open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		gs, err := db.Grants()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, g := range gs {
			out = append(out, grant{Grant: g, Hash: p.Hash, Root: p.Root})
		}
	}
	return out, errors.Join(errs...)
}

// revoke deletes grant ref.ID of project ref.Project; it returns the
// grant's pattern.
func (s *source) revoke(ref recordRef) (string, error) {
	p, err := s.project(ref.Project)
	if err != nil {
		return "", err
	}
	db, err := s.open(p)
	if err != nil {
		return "", err
	}
	gs, err := db.Grants()
	if err != nil {
		return "", err
	}
	pattern := ""
	for _, g := range gs {
		if g.ID == ref.ID {
			pattern = g.Pattern
		}
	}
	if err := db.RevokeGrant(ref.ID); err != nil {
		return "", fmt.Errorf("revoke grant %s of %s: %w", ref.ID, p.Root, err)
	}
	return pattern, nil
}

// projectStatus is one project's chain check, size and last activity.
type projectStatus struct {
	project
	Records int
	Last    string // the newest record's ts
	Err     error  // the chain (or the file) is not sound
}

func (s *source) projectStatus() ([]projectStatus, error) {
	ps, err := s.projects()
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
// reads and hashes every record (~0.4 ms per 10 records), so the result is
// kept while the file is unchanged: same size, same modification time,
// same newest record. Any write to the file, an append or an edit,
// changes its modification time.
func (s *source) verify(p project) projectStatus {
	st := projectStatus{project: p}
	db, err := s.open(p)
	if err != nil {
		st.Err = err
		return st
	}
	recs, _, err := db.AuditNewest("", 1)
	if err != nil {
		st.Err = err
		return st
	}
	key := verifyKey{}
	if fi, err := os.Stat(p.Path); err == nil {
		key = verifyKey{size: fi.Size(), mtime: fi.ModTime()}
	}
	if len(recs) == 1 {
		st.Last = recs[0].TS
		key.head = recs[0].Hash
	}
	s.mu.Lock()
	v, ok := s.verified[p.Path]
	s.mu.Unlock()
	if ok && v.key == key && !key.mtime.IsZero() {
		st.Records, st.Err = v.records, v.err
		return st
	}
	st.Records, st.Err = db.VerifyAudit()
	s.mu.Lock()
	s.verified[p.Path] = verified{key: key, records: st.Records, err: st.Err}
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

func sortStrings(s []string) { sort.Strings(s) }
