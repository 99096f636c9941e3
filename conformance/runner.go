package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perm-peer/perm-peer/schemas"
)

// Options tune a run. The zero value runs every embedded vector over both
// framings.
type Options struct {
	// Vectors is a flat directory of *.json vectors; nil = the embedded set.
	Vectors fs.FS
	// Framings to run; empty = both.
	Framings []Framing
	// Filter keeps only vectors whose name contains it.
	Filter string
	// Timeout bounds each wait for a message or an exit (default 10s). It
	// turns a hung peer into a failure; it synchronises nothing.
	Timeout time.Duration
	// Parallel is how many peers run at once (default GOMAXPROCS).
	Parallel int
	// TempDir is where per-vector directories are made ("" = os.TempDir).
	TempDir string
}

// Report is the outcome of a run: one Result per vector × framing.
type Report struct {
	Command []string `json:"command"`
	Results []Result `json:"results"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
}

// OK reports whether every result passed.
func (r Report) OK() bool { return r.Failed == 0 && len(r.Results) > 0 }

// Result is one vector run over one framing.
type Result struct {
	Vector      string        `json:"vector"`
	Description string        `json:"description"`
	Framing     Framing       `json:"framing"`
	Pass        bool          `json:"pass"`
	Failure     string        `json:"failure,omitempty"`
	Stderr      string        `json:"stderr,omitempty"` // the peer's stderr tail, on failure
	Duration    time.Duration `json:"durationNs"`
}

// Run launches cmd once per vector and framing and drives it. The error is
// for a run that could not start (no command, bad vectors); a peer that
// misbehaves is a failed Result, never an error. In cmd, the argument text
// {framing} is replaced by "lsp" or "ndjson" for peers that need a flag.
func Run(ctx context.Context, cmd []string, opts Options) (Report, error) {
	rep := Report{Command: cmd}
	if len(cmd) == 0 || cmd[0] == "" {
		return rep, errors.New("conformance: no peer command given")
	}
	// The peer runs in a temporary directory, where a relative program path
	// would name nothing: resolve it against ours.
	if strings.ContainsRune(cmd[0], filepath.Separator) && !filepath.IsAbs(cmd[0]) {
		abs, err := filepath.Abs(cmd[0])
		if err != nil {
			return rep, fmt.Errorf("conformance: resolve %s: %w", cmd[0], err)
		}
		cmd = append([]string{abs}, cmd[1:]...)
	}
	rep.Command = cmd
	fsys := opts.Vectors
	if fsys == nil {
		fsys = Vectors()
	}
	vectors, err := Load(fsys)
	if err != nil {
		return rep, fmt.Errorf("conformance: load vectors: %w", err)
	}
	framings := opts.Framings
	if len(framings) == 0 {
		framings = AllFramings
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	type job struct {
		v  Vector
		fr Framing
	}
	var jobs []job
	for _, v := range vectors {
		if opts.Filter != "" && !strings.Contains(v.Name, opts.Filter) {
			continue
		}
		for _, fr := range framings {
			if v.runsOn(fr) {
				jobs = append(jobs, job{v, fr})
			}
		}
	}
	if len(jobs) == 0 {
		return rep, fmt.Errorf("conformance: no vector matches %q", opts.Filter)
	}
	rep.Results = make([]Result, len(jobs))
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rep.Results[i] = runOne(ctx, cmd, j.v, j.fr, opts)
		}()
	}
	wg.Wait()
	for _, r := range rep.Results {
		if r.Pass {
			rep.Passed++
		} else {
			rep.Failed++
		}
	}
	return rep, nil
}

// inMsg is one message read from the peer, or the reason the output could
// not be read as the framing requires.
type inMsg struct {
	raw []byte
	v   map[string]any
	err error
}

// peerRun is one running peer for one vector and framing.
type peerRun struct {
	v       Vector
	fr      Framing
	timeout time.Duration

	cmd      *exec.Cmd
	stdin    io.WriteCloser
	closedIn bool
	msgs     chan inMsg
	gone     chan struct{} // closed when the runner stops reading
	buffered []inMsg
	exited   chan struct{}
	stderr   *tail

	vars   vars
	env    map[string]string
	sent   map[string]string // canonical request id → method
	exitOK bool              // an expectExit step checked the status
}

func runOne(ctx context.Context, cmd []string, v Vector, fr Framing, opts Options) Result {
	start := time.Now()
	res := Result{Vector: v.Name, Description: v.Description, Framing: fr}
	s, cleanup, err := startPeer(ctx, cmd, v, fr, opts)
	if err == nil {
		err = s.steps()
		if err == nil {
			err = s.finish()
		}
	}
	if s != nil {
		s.kill()
		close(s.gone)
		if err != nil {
			res.Stderr = s.stderr.String()
		}
	}
	if cleanup != nil {
		cleanup()
	}
	res.Duration = time.Since(start)
	res.Pass = err == nil
	if err != nil {
		res.Failure = err.Error()
	}
	return res
}

// startPeer makes the vector's directories and starts the peer in them.
func startPeer(ctx context.Context, cmd []string, v Vector, fr Framing, opts Options) (*peerRun, func(), error) {
	root, err := os.MkdirTemp(opts.TempDir, "perm-peer-conformance-")
	if err != nil {
		return nil, nil, fmt.Errorf("make temp dir: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(root) }
	// The peer sees resolved paths (macOS /var → /private/var).
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	dirs := map[string]string{}
	for _, d := range []string{"project", "home", "config", "state"} {
		dirs[d] = filepath.Join(root, d)
		if err := os.MkdirAll(dirs[d], 0o755); err != nil {
			return nil, cleanup, fmt.Errorf("make %s dir: %w", d, err)
		}
	}
	for name, content := range v.Files {
		p := filepath.Join(dirs["project"], filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, cleanup, fmt.Errorf("make project file %s: %w", name, err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, cleanup, fmt.Errorf("write project file %s: %w", name, err)
		}
	}
	args := make([]string, len(cmd)-1)
	for i, a := range cmd[1:] {
		args[i] = strings.ReplaceAll(a, "{framing}", string(fr))
	}
	c := exec.CommandContext(ctx, cmd[0], args...)
	c.Dir = dirs["project"]
	c.Env = append(cleanEnv(os.Environ()),
		"HOME="+dirs["home"], "XDG_CONFIG_HOME="+dirs["config"], "XDG_STATE_HOME="+dirs["state"], "PWD="+dirs["project"])
	c.WaitDelay = opts.Timeout
	s := &peerRun{v: v, fr: fr, timeout: opts.Timeout, cmd: c, msgs: make(chan inMsg, 64), gone: make(chan struct{}), exited: make(chan struct{}),
		stderr: &tail{max: 4 << 10}, vars: vars{}, sent: map[string]string{},
		env: map[string]string{"project": dirs["project"], "home": dirs["home"]}}
	c.Stderr = s.stderr
	s.stdin, err = c.StdinPipe()
	if err != nil {
		return nil, cleanup, fmt.Errorf("stdin pipe: %w", err)
	}
	// Our own pipe, not StdoutPipe: Wait must not close it under the reader.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, cleanup, fmt.Errorf("stdout pipe: %w", err)
	}
	c.Stdout = pw
	if err := c.Start(); err != nil {
		_ = pr.Close()
		_ = pw.Close()
		return nil, cleanup, fmt.Errorf("start peer %s: %w", cmd[0], err)
	}
	_ = pw.Close()
	go s.read(pr)
	go func() {
		_ = c.Wait()
		close(s.exited)
	}()
	return s, cleanup, nil
}

// cleanEnv drops the variables each vector sets itself.
func cleanEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "PWD":
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (s *peerRun) kill() {
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// read parses the peer's stdout in the vector's framing until it ends or
// breaks the framing.
func (s *peerRun) read(r io.ReadCloser) {
	defer close(s.msgs)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		body, err := readFrame(br, s.fr)
		if err == io.EOF {
			return
		}
		if err != nil {
			s.deliver(inMsg{err: err})
			return
		}
		m, err := decodeJSON(body)
		obj, isObj := m.(map[string]any)
		if err != nil || !isObj {
			s.deliver(inMsg{raw: body, err: fmt.Errorf("peer wrote a frame that is not a JSON object: %q", clip(string(body), 200))})
			return
		}
		if !s.deliver(inMsg{raw: body, v: obj}) {
			return
		}
	}
}

// deliver hands a message to the runner; false once the runner is gone.
func (s *peerRun) deliver(m inMsg) bool {
	select {
	case s.msgs <- m:
		return true
	case <-s.gone:
		return false
	}
}

// readFrame reads one frame body. Anything else on stdout is an error:
// stdout carries protocol bytes only (SPEC §3.1). It is stricter than, and
// deliberately independent of, peer.Stream: the runner judges a peer's
// bytes, so it must not share the peer's parser.
func readFrame(br *bufio.Reader, fr Framing) ([]byte, error) {
	if fr == NDJSON {
		line, err := br.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read peer output: %w", err)
		}
		if err == io.EOF {
			return nil, fmt.Errorf("peer output ended inside a line: %q", clip(string(line), 200))
		}
		return line[:len(line)-1], nil
	}
	length := -1
	first := true
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && first && line == "" {
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("peer output ended inside a header block: %q", clip(line, 200))
		}
		first = false
		if !strings.HasSuffix(line, "\r\n") {
			return nil, fmt.Errorf("peer wrote a header line not ended by CRLF: %q", clip(line, 200))
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("peer wrote a line that is not a header: %q", clip(line, 200))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("peer wrote a bad Content-Length: %q", line)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("peer wrote a header block without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, fmt.Errorf("peer output ended inside a %d-byte body: %w", length, err)
	}
	return body, nil
}

// frame wraps a body in the framing.
func frame(fr Framing, body []byte) []byte {
	if fr == NDJSON {
		return append(append(make([]byte, 0, len(body)+1), body...), '\n')
	}
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

func (s *peerRun) steps() error {
	for i, st := range s.v.Steps {
		if err := s.step(st); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, st.action(), err)
		}
	}
	return nil
}

func (s *peerRun) step(st Step) error {
	switch st.action() {
	case "send":
		return s.send(st.Send)
	case "sendRaw":
		body := *st.SendRaw
		if st.PadTo > 0 {
			n := st.PadTo - (len(body) - len("{{pad}}"))
			if n < 0 || !strings.Contains(body, "{{pad}}") {
				return errors.New("padTo needs a {{pad}} marker and a length above the body's")
			}
			body = strings.Replace(body, "{{pad}}", strings.Repeat("a", n), 1)
		}
		return s.write(frame(s.fr, []byte(expand(body, s.env))))
	case "sendBytes":
		return s.write([]byte(expand(*st.SendBytes, s.env)))
	case "expect":
		return s.expectResponse(st.Expect)
	case "expectRequest":
		return s.expectRequest(st.ExpectRequest, st.Answer)
	case "expectNotification":
		m, err := s.waitFor("notification "+st.ExpectNotification.Method, func(m map[string]any) bool {
			_, hasID := m["id"]
			return !hasID && m["method"] == st.ExpectNotification.Method
		})
		if err != nil {
			return err
		}
		return s.matchMessage(st.ExpectNotification, m)
	case "closeStdin":
		s.closedIn = true
		return s.stdin.Close()
	case "expectExit":
		s.closeInputOnExit()
		code, err := s.waitExit()
		if err != nil {
			return err
		}
		if code != *st.ExpectExit {
			return fmt.Errorf("peer exited with status %d, want %d", code, *st.ExpectExit)
		}
		s.exitOK = true
		return nil
	}
	return errors.New("step without an action")
}

// closeInputOnExit keeps stdin open until the peer exits by itself; it is
// closed afterwards so nothing leaks.
func (s *peerRun) closeInputOnExit() {
	go func() {
		<-s.exited
		_ = s.stdin.Close()
	}()
}

func (s *peerRun) write(b []byte) error {
	if s.closedIn {
		return errors.New("stdin is already closed")
	}
	if _, err := s.stdin.Write(b); err != nil {
		return fmt.Errorf("write to peer: %w (peer stderr: %s)", err, s.stderr.String())
	}
	return nil
}

// send writes one JSON message, remembering the method of a request id so
// the response can be checked against the method's result schema.
func (s *peerRun) send(raw json.RawMessage) error {
	v, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("vector message: %w", err)
	}
	v, err = s.vars.substitute(v, s.env)
	if err != nil {
		return err
	}
	if obj, ok := v.(map[string]any); ok {
		if id, hasID := obj["id"]; hasID {
			if method, ok := obj["method"].(string); ok {
				s.sent[idKey(id)] = method
			}
		}
	}
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode vector message: %w", err)
	}
	return s.write(frame(s.fr, body))
}

func idKey(id any) string {
	b, _ := json.Marshal(id)
	return string(b)
}

// waitFor returns the first message (buffered or new) that sel accepts;
// others stay buffered, since replies may come out of order.
func (s *peerRun) waitFor(what string, sel func(map[string]any) bool) (map[string]any, error) {
	for i, m := range s.buffered {
		if sel(m.v) {
			s.buffered = append(s.buffered[:i], s.buffered[i+1:]...)
			return m.v, nil
		}
	}
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				return nil, fmt.Errorf("peer closed its output while waiting for %s%s", what, s.exitNote())
			}
			if m.err != nil {
				return nil, m.err
			}
			if err := checkEnvelope(m.v); err != nil {
				return nil, fmt.Errorf("%w: %s", err, clip(string(m.raw), 300))
			}
			if sel(m.v) {
				return m.v, nil
			}
			s.buffered = append(s.buffered, m)
		case <-timer.C:
			return nil, fmt.Errorf("no %s within %s%s", what, s.timeout, s.pendingNote())
		}
	}
}

func (s *peerRun) exitNote() string {
	select {
	case <-s.exited:
		return fmt.Sprintf(" (peer exited with status %d)", s.cmd.ProcessState.ExitCode())
	default:
		return ""
	}
}

func (s *peerRun) pendingNote() string {
	if len(s.buffered) == 0 {
		return ""
	}
	parts := make([]string, len(s.buffered))
	for i, m := range s.buffered {
		parts[i] = clip(string(m.raw), 200)
	}
	return "; received instead: " + strings.Join(parts, " | ")
}

// checkEnvelope checks what every JSON-RPC 2.0 message must carry.
func checkEnvelope(m map[string]any) error {
	if m["jsonrpc"] != "2.0" {
		return errors.New(`message without "jsonrpc":"2.0"`)
	}
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	e, hasError := m["error"]
	switch {
	case hasMethod:
		if _, ok := m["method"].(string); !ok {
			return errors.New(`"method" is not a string`)
		}
	case hasResult == hasError:
		return errors.New("a response needs exactly one of result and error")
	case !hasID:
		return errors.New(`a response without "id"`)
	case hasError:
		obj, ok := e.(map[string]any)
		if !ok || !isInteger(obj["code"]) {
			return errors.New(`"error" needs an integer "code"`)
		}
		if _, ok := obj["message"].(string); !ok {
			return errors.New(`"error" needs a string "message"`)
		}
	}
	return nil
}

func (s *peerRun) expectResponse(e *ExpectResponse) error {
	want, err := decodeJSON(e.ID)
	if err != nil {
		return fmt.Errorf("vector id: %w", err)
	}
	want, err = s.vars.substitute(want, s.env)
	if err != nil {
		return err
	}
	m, err := s.waitFor("response to id "+idKey(want), func(m map[string]any) bool {
		id, hasID := m["id"]
		_, isRequest := m["method"]
		return hasID && !isRequest && equalJSON(id, want)
	})
	if err != nil {
		return err
	}
	if len(e.Error) > 0 {
		if _, ok := m["error"]; !ok {
			return fmt.Errorf("want an error, got result %s", brief(m["result"]))
		}
		matcher, err := decodeJSON(e.Error)
		if err != nil {
			return fmt.Errorf("vector error matcher: %w", err)
		}
		if why := s.vars.match("/error", matcher, m["error"]); why != "" {
			return errors.New(why)
		}
		return nil
	}
	if _, ok := m["result"]; !ok {
		return fmt.Errorf("want a result, got error %s", brief(m["error"]))
	}
	matcher, err := decodeJSON(e.Result)
	if err != nil {
		return fmt.Errorf("vector result matcher: %w", err)
	}
	if why := s.vars.match("/result", matcher, m["result"]); why != "" {
		return errors.New(why)
	}
	method := e.Method
	if method == "" {
		method = s.sent[idKey(want)]
	}
	return validateAgainst(schemas.ResultSchema, method, "result", m["result"])
}

// validateAgainst checks a value against the method's schema, when the
// protocol has one for it.
func validateAgainst(lookup func(string) (string, bool), method, what string, v any) error {
	name, ok := lookup(method)
	if !ok {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	if err := schemas.Validate(name, b); err != nil {
		return fmt.Errorf("%s of %s does not fit %s: %w", what, method, name, err)
	}
	return nil
}

func (s *peerRun) expectRequest(e *ExpectMessage, answer json.RawMessage) error {
	m, err := s.waitFor("request "+e.Method, func(m map[string]any) bool {
		_, hasID := m["id"]
		return hasID && m["method"] == e.Method
	})
	if err != nil {
		return err
	}
	if err := s.matchMessage(e, m); err != nil {
		return err
	}
	if len(answer) == 0 {
		return nil
	}
	a, err := decodeJSON(answer)
	if err != nil {
		return fmt.Errorf("vector answer: %w", err)
	}
	a, err = s.vars.substitute(a, s.env)
	if err != nil {
		return err
	}
	obj, ok := a.(map[string]any)
	if !ok {
		return errors.New(`vector answer must be {"result": ...} or {"error": ...}`)
	}
	out := map[string]any{"jsonrpc": "2.0", "id": m["id"]}
	for k, v := range obj {
		out[k] = v
	}
	body, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return s.write(frame(s.fr, body))
}

// matchMessage matches a request's or notification's id and params, and
// validates the params against the method's schema.
func (s *peerRun) matchMessage(e *ExpectMessage, m map[string]any) error {
	if len(e.ID) > 0 {
		matcher, err := decodeJSON(e.ID)
		if err != nil {
			return fmt.Errorf("vector id matcher: %w", err)
		}
		if why := s.vars.match("/id", matcher, m["id"]); why != "" {
			return errors.New(why)
		}
	}
	if len(e.Params) > 0 {
		matcher, err := decodeJSON(e.Params)
		if err != nil {
			return fmt.Errorf("vector params matcher: %w", err)
		}
		if why := s.vars.match("/params", matcher, m["params"]); why != "" {
			return errors.New(why)
		}
	}
	params := m["params"]
	if params == nil {
		params = map[string]any{}
	}
	return validateAgainst(schemas.ParamsSchema, e.Method, "params", params)
}

func (s *peerRun) waitExit() (int, error) {
	select {
	case <-s.exited:
		return s.cmd.ProcessState.ExitCode(), nil
	case <-time.After(s.timeout):
		return -1, fmt.Errorf("peer did not exit within %s", s.timeout)
	}
}

// finish ends the input, waits for the peer to exit and fails on any message
// the vector did not expect.
func (s *peerRun) finish() error {
	if !s.closedIn && !s.exitOK {
		s.closedIn = true
		_ = s.stdin.Close()
	}
	code, err := s.waitExit()
	if err != nil {
		return fmt.Errorf("after the last step: %w once its input ended", err)
	}
	// The output ends once the process and its children are gone.
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	for done := false; !done; {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				done = true
				break
			}
			if m.err != nil {
				return fmt.Errorf("after the last step: %w", m.err)
			}
			s.buffered = append(s.buffered, m)
		case <-timer.C:
			return fmt.Errorf("peer output stayed open %s after it exited", s.timeout)
		}
	}
	if len(s.buffered) > 0 {
		return fmt.Errorf("after the last step: unexpected message(s): %s", strings.TrimPrefix(s.pendingNote(), "; received instead: "))
	}
	want := 0
	if s.v.ExitCode != nil {
		want = *s.v.ExitCode
	}
	if !s.exitOK && code != want {
		return fmt.Errorf("after its input ended the peer exited with status %d, want %d", code, want)
	}
	return nil
}

// tail keeps the last max bytes written to it (the peer's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
