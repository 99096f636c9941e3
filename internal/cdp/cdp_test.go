package cdp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClickSubmitsForm drives a real Chromium: open a page, click a form's
// button with the mouse, read the page the POST led to, take a screenshot.
func TestClickSubmitsForm(t *testing.T) {
	bin, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	var posted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method == http.MethodPost {
			posted = append(posted, r.PostFormValue("v"))
			fmt.Fprintf(w, "<p id=got>got %s</p>", r.PostFormValue("v"))
			return
		}
		fmt.Fprint(w, `<form method=post><input type=hidden name=v value=42><button id=b>go</button></form>`)
	}))
	defer srv.Close()
	b, err := Launch(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := p.ClickAndWait("#b"); err != nil {
		t.Fatal(err)
	}
	text, err := p.Text()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(text) != "got 42" || len(posted) != 1 || posted[0] != "42" {
		t.Fatalf("after click: text %q, posted %q", text, posted)
	}
	if err := p.Click("#nothing"); err == nil || !strings.Contains(err.Error(), "no element") {
		t.Fatalf("click on a missing element: %v", err)
	}
	shot := filepath.Join(t.TempDir(), "s.png")
	if err := p.Screenshot(shot, 400, false); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 100 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
}
