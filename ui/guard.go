package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// The guard stands in front of every handler. The page shows
// attacker-controlled text (commands, notes, paths) and can write rules, so
// each request must prove it comes from the user's own browser tab:
//
//   - Host must be the loopback address printed (a DNS-rebinding page sends
//     its own name);
//   - Origin, when sent, must be that address, and a POST must send it
//     (browsers always do for POSTs);
//   - the run's random token, from ?token= once (then a SameSite=Strict,
//     HttpOnly cookie) or the cookie;
//   - a POST carries a CSRF token the server issued with a page it rendered.
type guard struct {
	host   string // "127.0.0.1:PORT", exactly as printed
	origin string // "http://" + host
	token  string
	cookie string // cookie name; cookies are not scoped by port, so it names the port
	csrf   *csrfTokens
	next   http.Handler
}

// randomToken is 32 hex digits from crypto/rand.
func randomToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on Linux (Go 1.24+ documents it)
	}
	return hex.EncodeToString(b[:])
}

func sameSecret(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "+
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	// no-referrer would make the browser send "Origin: null" with our own form posts
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if r.Host != g.host {
		http.Error(w, "forbidden: this server answers only to "+g.host, http.StatusForbidden)
		return
	}
	origin := r.Header.Get("Origin")
	if origin != "" && origin != g.origin {
		http.Error(w, "forbidden: cross-origin request", http.StatusForbidden)
		return
	}
	if q := r.URL.Query().Get("token"); q != "" && r.Method == http.MethodGet {
		if !sameSecret(q, g.token) {
			http.Error(w, "forbidden: wrong token (use the URL perm-peer ui printed)", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: g.cookie, Value: g.token, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode})
		// Drop the token from the address bar and the history.
		u := *r.URL
		q := u.Query()
		q.Del("token")
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(g.cookie)
	if err != nil || !sameSecret(c.Value, g.token) {
		http.Error(w, "forbidden: open the URL perm-peer ui printed (it carries the token)", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		if origin == "" {
			http.Error(w, "forbidden: a write must come from the page (no Origin)", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if !g.csrf.valid(r.PostFormValue("csrf")) {
			http.Error(w, "forbidden: stale or missing form token; reload the page", http.StatusForbidden)
			return
		}
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	g.next.ServeHTTP(w, r)
}

// maxForm bounds a POST body: a candidate policy is the largest thing posted.
const maxForm = 2 << 20

// csrfTokens are the per-page tokens the server issued, each valid for
// csrfTTL; at most csrfMax are kept (the oldest go first).
type csrfTokens struct {
	mu     sync.Mutex
	issued map[string]time.Time
	order  []string
	now    func() time.Time
}

const (
	csrfTTL = 12 * time.Hour
	csrfMax = 4096
)

func newCSRFTokens() *csrfTokens {
	return &csrfTokens{issued: make(map[string]time.Time), now: time.Now}
}

// issue makes a token for one rendered page.
func (c *csrfTokens) issue() string {
	t := randomToken()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.order) >= csrfMax {
		delete(c.issued, c.order[0])
		c.order = c.order[1:]
	}
	c.issued[t] = c.now().Add(csrfTTL)
	c.order = append(c.order, t)
	return t
}

func (c *csrfTokens) valid(t string) bool {
	if t == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, ok := c.issued[t]
	return ok && c.now().Before(exp)
}

// startURL is the address printed for the user: the page with the token.
func startURL(host, token string) string {
	return (&url.URL{Scheme: "http", Host: host, Path: "/", RawQuery: "token=" + token}).String()
}
