package ui

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/perm-peer/perm-peer/review"
	"github.com/perm-peer/perm-peer/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the dashboard.
type Options struct {
	// Port to listen on, on 127.0.0.1; 0 picks a free one.
	Port int
	// Out receives the URL to open (with the token).
	Out io.Writer
	// StateDir holds the project DBs (store.StateDir() by default).
	StateDir string
	// UserPolicy is the user policy file the review loop reads and writes
	// ("" = $XDG_CONFIG_HOME/perm-peer/policy.json).
	UserPolicy string
	// LockTimeout bounds every wait for a DB another process holds.
	LockTimeout time.Duration
	// Now is the clock (default time.Now); "today" is its local day.
	Now func() time.Time
}

// Server is one running dashboard.
type Server struct {
	opts  Options
	token string
	csrf  *csrfTokens
	pages map[string]*template.Template
	src   *source
	ln    net.Listener
	http  *http.Server
}

// Listen binds 127.0.0.1:Port and prepares the server; Serve runs it.
func Listen(opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = store.DefaultLockTimeout
	}
	rv, err := review.New(review.Config{StateDir: opts.StateDir, UserPolicy: opts.UserPolicy, LockTimeout: opts.LockTimeout, KeepDecoded: true})
	if err != nil {
		return nil, err
	}
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1:%d: %w", opts.Port, err)
	}
	s := &Server{opts: opts, token: randomToken(), csrf: newCSRFTokens(), pages: pages, ln: ln,
		src: newSource(rv, opts.LockTimeout)}
	host := ln.Addr().String()
	g := &guard{host: host, origin: "http://" + host, token: s.token, csrf: s.csrf,
		cookie: "perm-peer-ui-" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), next: s.routes()}
	s.http = &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn)}
	return s, nil
}

// URL is the address to open, token included.
func (s *Server) URL() string { return startURL(s.ln.Addr().String(), s.token) }

// Serve prints the URL and serves until ctx ends, then stops: requests in
// flight get up to five seconds to finish.
func (s *Server) Serve(ctx context.Context) error {
	if s.opts.Out != nil {
		fmt.Fprintf(s.opts.Out, "perm-peer ui: open %s\n(Ctrl-C stops it)\n", s.URL())
	}
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.http.Shutdown(stop); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.today)
	mux.HandleFunc("GET /decisions", s.decisions)
	mux.HandleFunc("GET /why", s.why)
	mux.HandleFunc("GET /asks", s.asks)
	mux.HandleFunc("GET /rule", s.rulePreview)
	mux.HandleFunc("POST /rule", s.ruleWrite)
	mux.HandleFunc("GET /grants", s.grants)
	mux.HandleFunc("POST /grants/revoke", s.revoke)
	mux.HandleFunc("GET /projects", s.projects)
	mux.HandleFunc("GET /whatif", s.whatIf)
	mux.HandleFunc("POST /whatif", s.whatIfRun)
	return mux
}
