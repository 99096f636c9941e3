package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// testServer is a dashboard over a small recorded history, and a GET
// that passes the guard.
func testServer(t *testing.T, n int) (*Server, func(path string) (int, string)) {
	t.Helper()
	state := t.TempDir()
	history(t, state, n)
	s, err := Listen(Options{StateDir: filepath.Join(state, "perm-peer"), UserPolicy: filepath.Join(state, "policy.json")})
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
	_, get := testServer(t, 256)
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
