package peer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// Open prepares the world for the configured project (policy, store,
// judge) so a bad policy or an unopenable DB is a startup error rather than
// a failure on the first request.
func (s *Server) Open() error {
	w, err := s.openWorld(s.cfg.Project)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
	return nil
}

// Close releases the world (the DB) if Serve did not.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil && s.w.db != nil {
		err := s.w.db.Close()
		s.w.db = nil
		return err
	}
	return nil
}

func (s *Server) openWorld(project string) (*world, error) {
	if !filepath.IsAbs(project) {
		return nil, fmt.Errorf("project root %q is not an absolute path", project)
	}
	project = filepath.Clean(project)
	scope, projectPolicy := project, filepath.Join(project, ".perm-peer", "policy.json")
	if s.cfg.NoProject && project == filepath.Clean(s.cfg.Project) {
		scope, projectPolicy = "", ""
	}
	policy, err := gate.LoadPolicy(s.cfg.UserPolicyFile, projectPolicy, scope)
	if err != nil {
		return nil, err
	}
	if s.cfg.HostAllow != nil {
		policy.AddHostAllowFunc(s.cfg.HostAllow)
	}
	dbPath := s.cfg.DBPath
	if dbPath == "" {
		if dbPath, err = store.DefaultPath(project); err != nil {
			return nil, err
		}
	}
	opts := s.cfg.StoreOptions
	opts.Project = project // recorded next to the DB for `perm-peer log`
	db, err := store.Open(dbPath, opts)
	if err != nil {
		return nil, err
	}
	w := &world{
		project:    project,
		scope:      scope,
		home:       homeDir(s.cfg),
		policy:     policy,
		db:         db,
		protected:  store.Files(dbPath),
		askTimeout: policy.AskTimeout(),
		dirs:       gate.NewDirCache(),
	}
	if projectPolicy != "" {
		w.protected = append(w.protected, projectPolicy)
	}
	w.protected = append(w.protected, s.cfg.Protected...)
	if s.cfg.UserPolicyFile != "" {
		w.protected = append(w.protected, s.cfg.UserPolicyFile)
	}
	if s.cfg.AskTimeout > 0 {
		w.askTimeout = s.cfg.AskTimeout
	}
	jc := policy.Judge()
	if s.cfg.Judge != nil {
		jc = s.cfg.Judge
	}
	if jc != nil {
		cfg, err := judge.ConfigFromPolicy(*jc, os.Getenv)
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("judge configuration: %w", err)
		}
		w.judge = judge.New(cfg)
	}
	return w, nil
}

// useProject makes project (absolute, clean) the connection's world,
// opening it unless it already is.
func (s *Server) useProject(project string) (*world, error) {
	s.mu.Lock()
	current := s.w
	s.mu.Unlock()
	if current != nil && current.project == project {
		return current, nil
	}
	w, err := s.openWorld(project)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	old := s.w
	s.w = w
	s.mu.Unlock()
	if old != nil && old.db != nil {
		_ = old.db.Close()
	}
	return w, nil
}

// world returns the connection's world, opening the default project's on
// first use (ACP agents never send initialize).
func (s *Server) world() (*world, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil {
		return s.w, nil
	}
	w, err := s.openWorld(s.cfg.Project)
	if err != nil {
		return nil, err
	}
	s.w = w
	return w, nil
}

func (s *Server) initialize(req *jsonrpc2.Request) result {
	var p protocol.InitializeParams
	if err := decodeParams(req.Method, req.Params, &p); err != nil {
		return result{err: err}
	}
	if p.ProtocolVersion != protocol.Version {
		return failure(protocol.CodeInvalidParams, fmt.Sprintf("invalid params: /protocolVersion: unsupported version %d (this peer speaks %d)", p.ProtocolVersion, protocol.Version))
	}
	s.mu.Lock()
	already := s.initialized
	s.mu.Unlock()
	if already {
		return failure(protocol.CodeInvalidRequest, "initialize was already sent")
	}
	project := s.cfg.Project
	if p.Project != nil && p.Project.Root != "" && !filepath.IsAbs(p.Project.Root) {
		return failure(protocol.CodeInvalidParams, fmt.Sprintf("invalid params: /project/root: %q is not an absolute path", p.Project.Root))
	}
	if p.Project != nil && p.Project.Root != "" {
		project = filepath.Clean(p.Project.Root)
		if st, err := os.Stat(project); err != nil || !st.IsDir() {
			return failure(protocol.CodeInvalidParams, fmt.Sprintf("invalid params: /project/root: %q is not an existing directory", p.Project.Root))
		}
	}
	current, err := s.useProject(project)
	if err != nil {
		return failure(protocol.CodeInternalError, "cannot serve project: "+err.Error())
	}
	s.mu.Lock()
	s.initialized = true
	s.client = p
	s.mu.Unlock()
	res := protocol.InitializeResult{
		ProtocolVersion: protocol.Version,
		ServerInfo:      protocol.ServerInfo{Name: "perm-peer", Version: s.cfg.Version},
		Capabilities: protocol.ServerCapabilities{
			Modes: []protocol.Mode{protocol.ModeAsk, protocol.ModeAuto, protocol.ModeFull, protocol.ModeAI},
			ACP:   true,
		},
	}
	if current.judge != nil {
		res.Capabilities.Judge = protocol.JudgeCapability{Enabled: true, Model: current.judge.Model()}
	}
	return result{value: res}
}

// canPrompt reports whether the editor answers permission/ask.
func (s *Server) canPrompt() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized && s.client.Capabilities != nil && s.client.Capabilities.Prompt
}

// defaultSettings are the connection's mode and tier from initialize.
func (s *Server) defaultSettings() (protocol.Mode, protocol.Tier) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client.Settings == nil {
		return "", ""
	}
	return s.client.Settings.Mode, s.client.Settings.Tier
}

// agentName names the agent of a session opened without one: the
// configured one (a hook host), else the editor's clientInfo name.
func (s *Server) agentName() string {
	if s.cfg.Agent != "" {
		return s.cfg.Agent
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client.ClientInfo != nil {
		return s.client.ClientInfo.Name
	}
	return ""
}
