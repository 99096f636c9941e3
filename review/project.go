package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/peer/hook"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// Config says where the Reviewer reads from. The zero value is the user's
// own setup.
type Config struct {
	// StateDir holds the project DBs ("" = store.StateDir()).
	StateDir string
	// UserPolicy is the user policy file ("" = $XDG_CONFIG_HOME/perm-peer/policy.json).
	UserPolicy string
	// Home is the home directory ("" = os.UserHomeDir).
	Home string
	// LockTimeout bounds every wait for a DB another process holds
	// (0 = store.DefaultLockTimeout): a long-lived reader such as the web
	// view must answer "busy", not hang.
	LockTimeout time.Duration
	// KeepDecoded keeps every project's decoded records between calls and
	// reads only new ones (cache.go): for a Reviewer that lives long and
	// reads the same logs often, such as the web view's.
	KeepDecoded bool
}

// Reviewer reads the logs and policies of every project. It holds no file
// open between calls, so it can live as long as a web server.
type Reviewer struct {
	stateDir   string
	userPolicy string
	home       string
	dbOptions  store.Options // how every DB is opened
	cache      *recordCache  // nil unless Config.KeepDecoded
}

// New makes a Reviewer for cfg.
func New(cfg Config) (*Reviewer, error) {
	r := &Reviewer{stateDir: cfg.StateDir, userPolicy: cfg.UserPolicy, home: cfg.Home,
		dbOptions: store.Options{LockTimeout: cfg.LockTimeout}}
	if cfg.KeepDecoded {
		r.cache = &recordCache{logs: make(map[string][]protocol.AuditRecord)}
	}
	var err error
	if r.stateDir == "" {
		if r.stateDir, err = store.StateDir(); err != nil {
			return nil, err
		}
	}
	if r.userPolicy == "" {
		r.userPolicy = UserPolicyPath()
	}
	if r.home == "" {
		r.home, _ = os.UserHomeDir()
	}
	return r, nil
}

// UserPolicyPath is $XDG_CONFIG_HOME/perm-peer/policy.json (or
// ~/.config/perm-peer/policy.json; a relative $XDG_CONFIG_HOME is ignored,
// as the XDG spec says). The file need not exist.
func UserPolicyPath() string {
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(cfg) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cfg = filepath.Join(home, ".config")
	}
	return filepath.Join(cfg, "perm-peer", "policy.json")
}

// ProjectPolicyPath is <root>/.perm-peer/policy.json.
func ProjectPolicyPath(root string) string {
	return filepath.Join(root, ".perm-peer", "policy.json")
}

// UserPolicy is the user policy file the Reviewer reads and writes.
func (r *Reviewer) UserPolicy() string { return r.userPolicy }

// Project is one project with a DB.
type Project struct {
	Root   string `json:"root"` // "" when no process recorded it (an older DB)
	DBPath string `json:"db"`
	// Hash is the DB file's name without ".db"; IDs start with its first
	// six characters.
	Hash string `json:"hash"`
}

// ShortHash is the project part of an Entry ID.
func (p Project) ShortHash() string { return p.Hash[:min(len(p.Hash), shortHash)] }

const shortHash = 6

// Projects lists the projects with a DB in the state directory.
func (r *Reviewer) Projects() ([]Project, error) {
	dbs, err := store.ProjectDBs(r.stateDir)
	if err != nil {
		return nil, err
	}
	out := make([]Project, 0, len(dbs))
	for _, d := range dbs {
		out = append(out, Project{Root: d.Root, DBPath: d.Path, Hash: d.Hash})
	}
	return out, nil
}

// ProjectOf resolves a directory to its project, the way the hooks do: the
// nearest recorded project root at or above dir, else the git top-level of
// dir, else dir itself. The project need not have a DB yet (DBPath is where
// it will be).
func (r *Reviewer) ProjectOf(dir string) (Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Project{}, fmt.Errorf("resolve %s: %w", dir, err)
	}
	abs = filepath.Clean(abs)
	known, err := r.Projects()
	if err != nil {
		return Project{}, err
	}
	candidates := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		candidates = append(candidates, real)
	}
	for _, dir := range candidates {
		var best Project
		for _, p := range known {
			if p.Root != "" && within(dir, p.Root) && len(p.Root) > len(best.Root) {
				best = p
			}
		}
		if best.Root != "" {
			return best, nil
		}
	}
	root, err := hook.ProjectOf(abs)
	if err != nil {
		return Project{}, err
	}
	return r.projectAt(root)
}

// projectAt is the project whose root is exactly root.
func (r *Reviewer) projectAt(root string) (Project, error) {
	path, err := store.DefaultPath(root)
	if err != nil {
		return Project{}, err
	}
	if filepath.Dir(path) != r.stateDir {
		path = filepath.Join(r.stateDir, filepath.Base(path))
	}
	return Project{Root: root, DBPath: path, Hash: strings.TrimSuffix(filepath.Base(path), ".db")}, nil
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	if path == root {
		return true
	}
	if root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}

// Policy loads the policy that applies in project p now (user file and
// the project's file).
func (r *Reviewer) Policy(p Project) (*gate.Policy, error) {
	return gate.LoadPolicy(r.userPolicy, ProjectPolicyPath(p.Root), p.Root)
}
