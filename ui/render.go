package ui

import (
	"bytes"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
)

// pageNames are the templates that are whole pages (each defines "content").
var pageNames = []string{"today", "decisions", "why", "asks", "rule", "grants", "projects", "whatif", "error"}

// parseTemplates parses layout.html once per page, so every page may
// define its own "content".
func parseTemplates() (map[string]*template.Template, error) {
	layout, err := template.ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("ui templates: %w", err)
	}
	out := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("ui templates: %w", err)
		}
		out[name] = t
	}
	return out, nil
}

// page is what the layout renders around a view's Data.
type page struct {
	Title string
	Nav   []navLink
	CSRF  string // this page's token for its forms
	Flash string
	Error string
	Data  any
}

type navLink struct {
	Href, Label string
	Current     bool
}

var navItems = []navLink{
	{Href: "/", Label: "today"},
	{Href: "/decisions", Label: "decisions"},
	{Href: "/asks", Label: "asks and denials"},
	{Href: "/grants", Label: "grants"},
	{Href: "/projects", Label: "projects"},
	{Href: "/whatif", Label: "what if"},
}

// render writes one page; a template error is a 500 with nothing partial
// sent.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name, title string, p page) {
	s.renderStatus(w, r, http.StatusOK, name, title, p)
}

func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, code int, name, title string, p page) {
	p.Title = title
	p.CSRF = s.csrf.issue()
	for _, n := range navItems {
		n.Current = n.Href == r.URL.Path
		p.Nav = append(p.Nav, n)
	}
	if p.Flash == "" {
		p.Flash = r.URL.Query().Get("done")
	}
	var buf bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		slog.Error("render page", "page", name, "err", err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = buf.WriteTo(w)
}

// fail renders an error page with status code.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	slog.Warn("ui request", "path", r.URL.Path, "err", err)
	s.renderStatus(w, r, code, "error", "error", page{Error: err.Error()})
}
