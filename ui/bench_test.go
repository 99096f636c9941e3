package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perm-peer/perm-peer/internal/cpuclock"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// history writes n decisions (a multiple of 128), today, into two projects' DBs under
// stateDir/perm-peer, by four agents, the way the peers write them.
func history(tb testing.TB, stateDir string, n int) {
	tb.Helper()
	tb.Setenv("XDG_STATE_HOME", stateDir)
	agents := []string{"claude-code", "codex", "gemini", "cursor"}
	commands := []string{"ls src", "go test ./...", "git status", "rm -rf /", "git push origin main", "cat .env", "npm install left-pad", "make"}
	var wg sync.WaitGroup
	for pi, name := range []string{"shop", "blog"} {
		root := filepath.Join(stateDir, "projects", name)
		path, err := store.DefaultPath(root)
		if err != nil {
			tb.Fatal(err)
		}
		db, err := store.Open(path, store.Options{Project: root})
		if err != nil {
			tb.Fatal(err)
		}
		for i, a := range agents {
			if err := db.PutSession(protocol.Session{ID: fmt.Sprintf("s%d", i), Agent: a, Cwd: root}); err != nil {
				tb.Fatal(err)
			}
		}
		const workers = 64
		per := n / 2 / workers
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < per; i++ {
					k := w*per + i + pi
					cmd := commands[k%len(commands)]
					raw, _ := json.Marshal(map[string]string{"command": cmd})
					rec := protocol.AuditRecord{SessionID: fmt.Sprintf("s%d", k%len(agents)), Turn: 1 + k/40,
						ToolCall: protocol.ToolCall{ToolCallID: fmt.Sprint(k), Tool: "Bash", Kind: protocol.KindExecute, RawInput: raw},
						Action:   "bash: " + cmd, Resources: []string{root + "/src"},
						Decision: protocol.ReplyOnce, DecidedBy: protocol.ByGate, Source: protocol.SourceAuto}
					switch k % 5 {
					case 3:
						rec.Decision, rec.DecidedBy = protocol.ReplyReject, protocol.ByFloor
						rec.Reply.Feedback = "blocked by policy; do not retry a variation"
					case 4:
						rec.DecidedBy, rec.Source = protocol.ByUser, protocol.SourceUser
						rec.Reply.Feedback = "fine <b>once</b>"
					}
					rec.Reply.Reply = rec.Decision
					if _, err := db.AppendAudit(context.Background(), rec); err != nil {
						tb.Error(err)
						return
					}
				}
			}(w)
		}
		wg.Wait()
		if err := db.Close(); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkPageLoad is the server time of each page over 10 000 decisions
// of today (the today view aggregates all of them): handler in, bytes out,
// no network.
func BenchmarkPageLoad(b *testing.B) {
	state := b.TempDir()
	history(b, state, 10000)
	s, err := Listen(Options{StateDir: filepath.Join(state, "perm-peer")})
	if err != nil {
		b.Fatal(err)
	}
	defer s.ln.Close()
	h := s.http.Handler
	host := s.ln.Addr().String()
	cookie := &http.Cookie{Name: h.(*guard).cookie, Value: s.token}
	get := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.Host = host
		r.AddCookie(cookie)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%s: %d %s", path, w.Code, w.Body.String())
		}
		return w
	}
	// 2 projects × 64 writers × 78 records, all of today.
	if body := get("/").Body.String(); !strings.Contains(body, "9984 in all") {
		b.Fatalf("today does not count 9984 decisions:\n%s", body)
	}
	// The first load of a server: nothing decoded yet.
	b.Run("first-load-today", func(b *testing.B) {
		cpu0 := cpuclock.Process()
		defer func() { b.ReportMetric(float64(cpuclock.Process()-cpu0)/1e6/float64(b.N), "cpu-ms/op") }()
		for b.Loop() {
			fresh, err := Listen(Options{StateDir: filepath.Join(state, "perm-peer")})
			if err != nil {
				b.Fatal(err)
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.Host = fresh.ln.Addr().String()
			r.AddCookie(&http.Cookie{Name: fresh.http.Handler.(*guard).cookie, Value: fresh.token})
			w := httptest.NewRecorder()
			fresh.http.Handler.ServeHTTP(w, r)
			fresh.ln.Close()
			if w.Code != 200 || !strings.Contains(w.Body.String(), "9984 in all") {
				b.Fatalf("first load: %d", w.Code)
			}
		}
	})
	for _, path := range []string{"/", "/decisions", "/decisions?q=push&since=all", "/asks", "/projects", "/grants"} {
		b.Run(path, func(b *testing.B) {
			cpu0 := cpuclock.Process()
			for b.Loop() {
				get(path)
			}
			// CPU time per load: the figure that holds on a shared, loaded machine
			b.ReportMetric(float64(cpuclock.Process()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
