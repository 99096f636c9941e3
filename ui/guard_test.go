package ui

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// guardServer serves a guard in front of a handler that counts what gets
// through, on a real loopback listener.
func guardServer(t *testing.T) (g *guard, base string, through *int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	host := ln.Addr().String()
	g = &guard{host: host, origin: "http://" + host, token: randomToken(), cookie: "c", csrf: newCSRFTokens(),
		next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n++ })}
	srv := &http.Server{Handler: g}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return g, "http://" + host, &n
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func TestGuard(t *testing.T) {
	g, base, through := guardServer(t)
	client := &http.Client{CheckRedirect: noRedirect}
	csrf := g.csrf.issue()
	form := url.Values{"csrf": {csrf}}.Encode()

	type req struct {
		name, method, path, host, origin, cookie, body string
		want                                           int
	}
	good := g.token
	for _, c := range []req{
		{name: "no token", method: "GET", path: "/", want: 403},
		{name: "wrong token", method: "GET", path: "/?token=" + strings.Repeat("0", 32), want: 403},
		{name: "wrong cookie", method: "GET", path: "/", cookie: "x", want: 403},
		{name: "other host (DNS rebinding)", method: "GET", path: "/", host: "evil.example", cookie: good, want: 403},
		{name: "localhost is not the printed address", method: "GET", path: "/", host: "localhost", cookie: good, want: 403},
		{name: "other origin", method: "GET", path: "/", origin: "http://evil.example", cookie: good, want: 403},
		{name: "null origin", method: "GET", path: "/", origin: "null", cookie: good, want: 403},
		{name: "token in a POST url does not log in", method: "POST", path: "/x?token=" + good, origin: "self", body: form, want: 403},
		{name: "POST without origin", method: "POST", path: "/x", cookie: good, body: form, want: 403},
		{name: "POST from another origin", method: "POST", path: "/x", origin: "http://evil.example", cookie: good, body: form, want: 403},
		{name: "POST without csrf", method: "POST", path: "/x", origin: "self", cookie: good, want: 403},
		{name: "POST with a csrf never issued", method: "POST", path: "/x", origin: "self", cookie: good, body: "csrf=" + randomToken(), want: 403},
		{name: "PUT", method: "PUT", path: "/x", origin: "self", cookie: good, body: form, want: 405},
	} {
		before := *through
		r, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.body != "" {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if c.host != "" {
			r.Host = c.host + ":" + strings.Split(base, ":")[2]
		}
		if c.origin == "self" {
			r.Header.Set("Origin", base)
		} else if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if c.cookie != "" {
			r.AddCookie(&http.Cookie{Name: "c", Value: c.cookie})
		}
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want || *through != before {
			t.Errorf("%s: status %d (want %d), reached the handler %d times", c.name, resp.StatusCode, c.want, *through-before)
		}
		if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: security headers missing: %v", c.name, resp.Header)
		}
	}

	// The token in the URL becomes a cookie, and the redirect drops it.
	resp, err := client.Get(base + "/decisions?agent=a&token=" + good)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/decisions?agent=a" {
		t.Fatalf("token visit: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "c" {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != good || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" {
		t.Fatalf("cookie: %+v", cookie)
	}
	if *through != 0 {
		t.Fatalf("%d requests reached the handler before a good one", *through)
	}

	// With the cookie a GET and a same-origin POST with a page's csrf pass.
	r, _ := http.NewRequest("GET", base+"/", nil)
	r.AddCookie(cookie)
	if resp, err = client.Do(r); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET with cookie: %v %v", resp, err)
	}
	r, _ = http.NewRequest("POST", base+"/x", strings.NewReader(form))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", base)
	r.AddCookie(cookie)
	if resp, err = client.Do(r); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST with cookie and csrf: %v %v", resp, err)
	}
	if *through != 2 {
		t.Fatalf("handler reached %d times, want 2", *through)
	}
}

func TestCSRFTokensBounded(t *testing.T) {
	c := newCSRFTokens()
	first := c.issue()
	for i := 0; i < csrfMax; i++ {
		c.issue()
	}
	if c.valid(first) || len(c.issued) != csrfMax || len(c.order) != csrfMax {
		t.Fatalf("oldest token still valid %v, %d kept", c.valid(first), len(c.issued))
	}
	last := c.issue()
	if !c.valid(last) || c.valid("") {
		t.Fatal("fresh token refused or empty accepted")
	}
}
