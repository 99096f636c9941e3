package ui

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// testServer is a dashboard over a small recorded history, and a GET
// that passes the guard.
func testServer(t *testing.T, n int, lockTimeout time.Duration) (*Server, func(path string) (int, string)) {
	t.Helper()
	state := t.TempDir()
	history(t, state, n)
	s, err := Listen(Options{StateDir: filepath.Join(state, "perm-peer"), UserPolicy: filepath.Join(state, "policy.json"),
		LockTimeout: lockTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.ln.Close() })
	get := func(path string) (int, string) {
		r := httptest.NewRequest("GET", path, nil)
		r.Host = s.ln.Addr().String()
		r.AddCookie(&http.Cookie{Name: s.http.Handler.(*guard).cookie, Value: s.token})
		w := httptest.NewRecorder()
		s.http.Handler.ServeHTTP(w, r)
		body, _ := io.ReadAll(w.Result().Body)
		return w.Code, string(body)
	}
	return s, get
}

func TestEveryPageRenders(t *testing.T) {
	_, get := testServer(t, 256, 0)
	code, body := get("/decisions?since=all")
	if code != 200 {
		t.Fatalf("/decisions: %d %s", code, body)
	}
	id := regexp.MustCompile(`/why\?id=([0-9a-f]{6}%3A\d+)`).FindStringSubmatch(body)
	if id == nil {
		t.Fatalf("no why link in /decisions:\n%s", body)
	}
	for _, path := range []string{"/", "/decisions", "/decisions?agent=codex&decision=denied&q=rm", "/asks",
		"/why?id=" + id[1], "/rule?effect=allow&id=" + id[1], "/rule?effect=deny&id=" + id[1], "/grants", "/projects", "/whatif",
		"/static/style.css", "/static/app.js"} {
		code, body := get(path)
		if code != 200 {
			t.Errorf("%s: %d\n%s", path, code, body)
		}
		if strings.Contains(body, "ZgotmplZ") {
			t.Errorf("%s: a value the template refused (ZgotmplZ)", path)
		}
	}
	for path, want := range map[string]int{
		"/why?id=ffffff:1":               404,
		"/why?id=nonsense":               404,
		"/rule?effect=maybe&id=" + id[1]: 400,
		"/decisions?decision=perhaps":    400,
		"/decisions?project=nope":        404,
		"/nowhere":                       404,
	} {
		if code, _ := get(path); code != want {
			t.Errorf("%s: %d, want %d", path, code, want)
		}
	}
}

// An edited record shows as a broken chain on the projects page, naming
// the record, and the other project stays ok.
func TestProjectsShowsBrokenChain(t *testing.T) {
	s, get := testServer(t, 128, 0)
	dbs, err := filepath.Glob(filepath.Join(s.opts.StateDir, "*.db"))
	if err != nil || len(dbs) != 2 {
		t.Fatalf("dbs %v %v", dbs, err)
	}
	if code, body := get("/projects"); code != 200 || strings.Count(body, `b-allow">ok<`) != 2 {
		t.Fatalf("before: %d\n%s", code, body)
	}
	bdb, err := bolt.Open(dbs[0], 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = bdb.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("audit"))
		k, v := b.Cursor().Seek([]byte{0, 0, 0, 0, 0, 0, 0, 2})
		return b.Put(k, []byte(strings.Replace(string(v), `"turn":`, `"turn": `, 1)))
	})
	if err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	code, body := get("/projects")
	if code != 200 || strings.Count(body, `b-allow">ok<`) != 1 || !strings.Contains(body, `b-deny">broken<`) ||
		!strings.Contains(body, "audit record 2") {
		t.Fatalf("after an edit: %d\n%s", code, body)
	}
}

// post sends a form to s the way its own page does (Origin, cookie, a
// CSRF token it issued).
func post(t *testing.T, s *Server, path string, form url.Values) (int, string) {
	t.Helper()
	form.Set("csrf", s.csrf.issue())
	r := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
	r.Host = s.ln.Addr().String()
	r.Header.Set("Origin", "http://"+r.Host)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(&http.Cookie{Name: s.http.Handler.(*guard).cookie, Value: s.token})
	w := httptest.NewRecorder()
	s.http.Handler.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

func TestWhatIfRefusesABrokenCandidate(t *testing.T) {
	s, _ := testServer(t, 256, 0)
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "perm-peer-ui-candidate-*"))
	for policy, want := range map[string]string{
		"":                           "paste or upload a candidate policy first",
		`{"allow": ["Bash(ls *)",]}`: "the candidate policy",
		`{"mode": "sideways"}`:       "sideways",
	} {
		code, body := post(t, s, "/whatif", url.Values{"policy": {policy}, "since": {"all"}})
		if code != 200 || !strings.Contains(body, `class="error"`) || !strings.Contains(body, html.EscapeString(want)) ||
			strings.Contains(body, `class="summary"`) {
			t.Errorf("candidate %q: %d, want an error naming %q:\n%s", policy, code, want, body)
		}
	}
	code, body := post(t, s, "/whatif", url.Values{"policy": {`{"deny": ["Bash(ls *)"]}`}, "since": {"all"}})
	if code != 200 || !strings.Contains(body, "256 recorded calls decided again") {
		t.Errorf("a good candidate: %d\n%s", code, body)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "perm-peer-ui-candidate-*"))
	if len(after) != len(before) {
		t.Errorf("candidate files left behind: %v", after)
	}
	// Writes that name nothing real change nothing and say why.
	if code, _ := post(t, s, "/grants/revoke", url.Values{"project": {"nope"}, "id": {"1"}}); code != 404 {
		t.Errorf("revoke in no project: %d, want 404", code)
	}
	if code, _ := post(t, s, "/rule", url.Values{"id": {"ffffff:1"}, "effect": {"allow"}}); code != 404 {
		t.Errorf("rule for no decision: %d, want 404", code)
	}
}
