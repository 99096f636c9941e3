package ui

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/review"
	"github.com/perm-peer/perm-peer/store"
)

// Each handler reads through the review loop (source.go), builds rows and
// renders one template. Only the POST handlers write, and each does
// exactly what its command line twin does.

// latestRows is how many decisions the today view lists; pageRows how many
// a decisions page lists.
const (
	latestRows = 15
	pageRows   = 200
)

// today: the day's counts, the timeline and the latest decisions.
func (s *Server) today(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	y, m, d := now.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	entries, err := s.src.r.Log(review.Query{Since: midnight})
	perKind := map[string]int{}
	nAsked := 0
	perCell := map[hourCount]int{}
	for _, e := range entries {
		perKind[countKind(e.Record)]++
		if asked(e.Record) {
			nAsked++
		}
		perCell[hourCount{Hour: e.Time.In(now.Location()).Hour(), Agent: e.Agent}]++
	}
	cells := make([]hourCount, 0, len(perCell))
	for c, n := range perCell {
		c.N = n
		cells = append(cells, c)
	}
	data := todayData{Day: midnight.Format("Monday 2 January 2006"), Chart: buildTimeline(cells)}
	for _, e := range entries[:min(len(entries), latestRows)] {
		data.Latest.Rows = append(data.Latest.Rows, rowOf(e, now))
	}
	for _, k := range []struct{ kind, label, class, decision string }{
		{"gate", "allowed by the gate", "allow", "allowed"},
		{"rules", "allowed by rules", "allow", "allowed"},
		{"grants", "allowed by grants", "allow", "allowed"},
		{"judge", "allowed by the judge", "allow", "allowed"},
		{"user", "allowed by you", "allow", "allowed"},
		{"asked", "asked", "ask", "asked"},
		{"denied", "denied", "deny", "denied"},
	} {
		n := perKind[k.kind]
		if k.kind == "asked" {
			n = nAsked
		}
		data.Counts = append(data.Counts, countBox{N: n, Label: k.label, Class: k.class,
			Href: "/decisions?" + url.Values{"decision": {k.decision}, "since": {"today"}}.Encode()})
	}
	p := page{Data: data}
	if err != nil {
		p.Error = err.Error()
	}
	s.render(w, r, "today", "today", p)
}

type todayData struct {
	Day    string
	Counts []countBox
	Chart  timeline
	Latest table
}

type countBox struct {
	N                  int
	Label, Class, Href string
}

// option is one <option> of a filter.
type option struct {
	Value, Label string
	Selected     bool
}

func options(values []string, labels map[string]string, selected string) []option {
	out := make([]option, 0, len(values))
	for _, v := range values {
		l := v
		if labels != nil && labels[v] != "" {
			l = labels[v]
		}
		out = append(out, option{Value: v, Label: l, Selected: v == selected})
	}
	return out
}

// decisionFilters are the review loop's decision values, in the order shown.
var decisionFilters = []string{"allowed", "always", "asked", "denied"}

var decisionLabels = map[string]string{
	"allowed": "allowed", "always": "allowed always", "asked": "asked (you answered)", "denied": "denied",
}

// sinceValues are the time windows offered; each is a review.ParseSince value.
var sinceValues = []string{"1h", "today", "24h", "7d", "30d", "all"}
var sinceLabels = map[string]string{"1h": "last hour", "today": "today", "24h": "last 24 hours", "7d": "last 7 days", "30d": "last 30 days", "all": "all time"}

// sinceTime reads a since value ("all": no bound; "" and anything unknown:
// the last 7 days, so the page stays fast without a filter).
func sinceTime(v string, now time.Time) time.Time {
	if v == "all" {
		return time.Time{}
	}
	if t, err := review.ParseSince(v, now); err == nil && v != "" && !t.IsZero() {
		return t
	}
	return now.AddDate(0, 0, -7)
}

// decisions: the log with filters, newest first, one page at a time.
func (s *Server) decisions(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	q := r.URL.Query()
	since := q.Get("since")
	if since == "" || sinceLabels[since] == "" {
		since = "7d"
	}
	query := review.Query{Agent: q.Get("agent"), Decision: q.Get("decision"), Text: q.Get("q"),
		Since: sinceTime(since, now), Limit: pageRows + 1}
	if query.Decision != "" && decisionLabels[query.Decision] == "" {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("unknown decision filter %q", query.Decision))
		return
	}
	projects, perr := s.src.r.Projects()
	project := q.Get("project")
	for _, p := range projects {
		if p.Hash == project {
			query.Projects = []string{p.Root}
		}
	}
	if project != "" && query.Projects == nil {
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("no project with database %q", project))
		return
	}
	if u := q.Get("until"); u != "" {
		t, err := time.Parse(time.RFC3339Nano, u)
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, fmt.Errorf("until %q is not a time", u))
			return
		}
		query.Until = t
	}
	entries, err := s.src.r.Log(query)
	more := ""
	if len(entries) > pageRows {
		entries = entries[:pageRows]
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("until", entries[len(entries)-1].Time.Add(-time.Nanosecond).Format(time.RFC3339Nano))
		more = "/decisions?" + next.Encode()
	}
	data := decisionsData{Text: query.Text, More: more,
		Decisions: options(decisionFilters, decisionLabels, query.Decision),
		Since:     options(sinceValues, sinceLabels, since)}
	for _, e := range entries {
		data.Table.Rows = append(data.Table.Rows, rowOf(e, now))
	}
	data.Projects = projectOptions(projects, project)
	agents := agentsOf(entries)
	if query.Agent != "" && len(agents) == 0 {
		agents = []string{query.Agent}
	}
	data.Agents = options(agents, nil, query.Agent)
	data.Summary = fmt.Sprintf("%d decisions, newest first", len(entries))
	if more != "" {
		data.Summary += " (older ones on the next page)"
	}
	p := page{Data: data}
	if err = errors.Join(err, perr); err != nil {
		p.Error = err.Error()
	}
	s.render(w, r, "decisions", "decisions", p)
}

func projectOptions(projects []review.Project, selected string) []option {
	out := make([]option, 0, len(projects))
	for _, p := range projects {
		out = append(out, option{Value: p.Hash, Label: p.Root, Selected: p.Hash == selected})
	}
	return out
}

type decisionsData struct {
	Projects, Agents, Decisions, Since []option
	Text, Summary, More                string
	Table                              table
}

// asks: the recent calls a person answered or that were denied, with the
// rule buttons.
func (s *Server) asks(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	since := now.AddDate(0, 0, -7)
	askedEntries, err1 := s.src.r.Log(review.Query{Decision: "asked", Since: since, Limit: pageRows})
	denied, err2 := s.src.r.Log(review.Query{Decision: "denied", Since: since, Limit: pageRows})
	entries := mergeNewest(askedEntries, denied, pageRows)
	t := table{Buttons: true}
	for _, e := range entries {
		t.Rows = append(t.Rows, rowOf(e, now))
	}
	p := page{Data: t}
	if err := errors.Join(err1, err2); err != nil {
		p.Error = err.Error()
	}
	s.render(w, r, "asks", "asks and denials", p)
}

// mergeNewest merges two newest-first lists, dropping an entry in both
// (a user's rejection is asked and denied), keeping at most n.
func mergeNewest(a, b []review.Entry, n int) []review.Entry {
	out := make([]review.Entry, 0, min(len(a)+len(b), n))
	seen := map[string]bool{}
	for len(out) < n && (len(a) > 0 || len(b) > 0) {
		var e review.Entry
		if len(b) == 0 || (len(a) > 0 && !b[0].Time.After(a[0].Time)) {
			e, a = a[0], a[1:]
		} else {
			e, b = b[0], b[1:]
		}
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e)
		}
	}
	return out
}

// why: one decision explained, as `perm-peer why ID` does.
func (s *Server) why(w http.ResponseWriter, r *http.Request) {
	id := r.FormValue("id")
	e, err := s.src.r.Find(id, "")
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err)
		return
	}
	x, err := s.src.r.Why(e)
	if err != nil {
		s.fail(w, r, statusOf(err), err)
		return
	}
	s.render(w, r, "why", "why "+id, page{Data: whyData{Row: rowOf(e, s.opts.Now()), X: x}})
}

type whyData struct {
	Row row
	X   review.Explanation
}

// rulePreview shows the rule "allow calls like this" or "always deny"
// would write; nothing is written until its form is posted.
func (s *Server) rulePreview(w http.ResponseWriter, r *http.Request) {
	e, effect, ok := s.ruleRequest(w, r)
	if !ok {
		return
	}
	change, err := s.src.planRule(e, effect)
	if err != nil && !refused(err) {
		s.fail(w, r, statusOf(err), err)
		return
	}
	data := ruleData{Effect: effect, Row: rowOf(e, s.opts.Now()), Change: change}
	if err != nil {
		data.Refusal = err.Error()
	}
	s.render(w, r, "rule", effect+" calls like this", page{Data: data})
}

type ruleData struct {
	Effect  string
	Row     row
	Change  ruleChange
	Refusal string
}

// ruleWrite writes the rule previewed, as `perm-peer allow/deny ID` does.
func (s *Server) ruleWrite(w http.ResponseWriter, r *http.Request) {
	e, effect, ok := s.ruleRequest(w, r)
	if !ok {
		return
	}
	change, err := s.src.writeRule(e, effect, r.FormValue("rule"))
	if refused(err) {
		err = fmt.Errorf("%w: %v", errRefused, err)
	}
	if err != nil {
		s.fail(w, r, statusOf(err), err)
		return
	}
	done := fmt.Sprintf("%s: wrote %s into %s", effect, change.Rule, change.Where)
	http.Redirect(w, r, "/asks?"+url.Values{"done": {done}}.Encode(), http.StatusSeeOther)
}

// ruleRequest reads ?id=…&effect=allow|deny and finds the decision; on
// failure it has answered.
func (s *Server) ruleRequest(w http.ResponseWriter, r *http.Request) (review.Entry, string, bool) {
	id, effect := r.FormValue("id"), r.FormValue("effect")
	if effect != "allow" && effect != "deny" {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("effect must be allow or deny, not %q", effect))
		return review.Entry{}, "", false
	}
	e, err := s.src.r.Find(id, "")
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err)
		return review.Entry{}, "", false
	}
	return e, effect, true
}

// grants: every project's grants, each with a revoke button.
func (s *Server) grants(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	list, err := s.src.grants()
	var rows []grantRow
	for _, g := range list {
		gr := grantRow{Grant: g.Grant, Project: g.Project.Hash, Root: g.Project.Root, ProjectName: projectName(g.Project.Root)}
		gr.Created = localTS(g.Created, now)
		if g.AuditID != "" {
			gr.WhyHref = whyHref(g.Project.ShortHash() + ":" + g.AuditID)
		}
		rows = append(rows, gr)
	}
	p := page{Data: rows}
	if err != nil {
		p.Error = err.Error()
	}
	s.render(w, r, "grants", "grants", p)
}

type grantRow struct {
	protocol.Grant
	Project, Root, ProjectName, WhyHref string
}

// revoke deletes one grant, as `perm-peer grants revoke ID` does.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	id := r.FormValue("id")
	pattern, err := s.src.revoke(r.FormValue("project"), id)
	if err != nil {
		s.fail(w, r, statusOf(err), err)
		return
	}
	http.Redirect(w, r, "/grants?"+url.Values{"done": {"revoked grant " + id + " " + pattern}}.Encode(), http.StatusSeeOther)
}

// projects: each project's chain, size and last activity.
func (s *Server) projects(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	list, err := s.src.projectStatus()
	rows := make([]projectRow, 0, len(list))
	for _, p := range list {
		pr := projectRow{Root: p.Root, Path: p.DBPath, Records: p.Records, OK: p.Err == nil, Last: "never",
			Href: "/decisions?" + url.Values{"project": {p.Hash}, "since": {"all"}}.Encode()}
		if p.Err != nil {
			pr.Status = p.Err.Error()
			pr.Busy = errors.Is(p.Err, store.ErrLocked)
		}
		if p.Last != "" {
			pr.Last = localTS(p.Last, now)
		}
		rows = append(rows, pr)
	}
	pg := page{Data: rows}
	if err != nil {
		pg.Error = err.Error()
	}
	s.render(w, r, "projects", "projects", pg)
}

type projectRow struct {
	Root, Path, Status, Last, Href string
	Records                        int
	OK                             bool
	Busy                           bool // another process holds the DB: not checked, not broken
}

// whatIf shows the replay form; whatIfRun replays (reads only).
func (s *Server) whatIf(w http.ResponseWriter, r *http.Request) {
	s.renderWhatIf(w, r, whatIfData{}, "")
}

func (s *Server) whatIfRun(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	data := whatIfData{Project: r.FormValue("project"), SinceValue: r.FormValue("since"), Policy: r.FormValue("policy")}
	if f, _, err := r.FormFile("file"); err == nil {
		b, err := io.ReadAll(io.LimitReader(f, maxForm))
		f.Close()
		if err != nil {
			s.renderWhatIf(w, r, data, "read the uploaded policy: "+err.Error())
			return
		}
		if len(b) > 0 {
			data.Policy = string(b)
		}
	}
	data.AsProject = r.FormValue("as") == "project"
	res, err := s.src.replay([]byte(data.Policy), data.Project, data.AsProject, sinceTime(data.SinceValue, now))
	if err != nil {
		s.renderWhatIf(w, r, data, err.Error())
		return
	}
	data.Result = &res
	s.renderWhatIf(w, r, data, "")
}

func (s *Server) renderWhatIf(w http.ResponseWriter, r *http.Request, data whatIfData, msg string) {
	projects, err := s.src.r.Projects()
	if data.SinceValue == "" {
		data.SinceValue = "7d"
	}
	data.Projects = projectOptions(projects, data.Project)
	data.Since = options(sinceValues, sinceLabels, data.SinceValue)
	p := page{Data: data, Error: msg}
	if err != nil && msg == "" {
		p.Error = err.Error()
	}
	s.render(w, r, "whatif", "what if", p)
}

type whatIfData struct {
	Projects, Since             []option
	Project, SinceValue, Policy string
	AsProject                   bool // the candidate replaces each project's policy, not the user's
	Result                      *replayResult
}
