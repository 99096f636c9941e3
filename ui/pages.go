package ui

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
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
	var (
		perKind  = map[string]int{}
		nAsked   int
		perCell  = map[hourCount]int{}
		latest   []row
		firstErr error
	)
	err := s.src.each(filter{Since: midnight}, func(e entry) bool {
		perKind[countKind(e.Rec)]++
		if asked(e.Rec) {
			nAsked++
		}
		if t, err := time.Parse(time.RFC3339Nano, e.Rec.TS); err == nil {
			perCell[hourCount{Hour: t.In(now.Location()).Hour(), Agent: e.Agent}]++
		}
		if len(latest) < latestRows {
			latest = append(latest, s.row(e, now))
		}
		return true
	})
	if err != nil {
		firstErr = err
	}
	cells := make([]hourCount, 0, len(perCell))
	for c, n := range perCell {
		c.N = n
		cells = append(cells, c)
	}
	sort.Slice(cells, func(i, j int) bool {
		if cells[i].Hour != cells[j].Hour {
			return cells[i].Hour < cells[j].Hour
		}
		return cells[i].Agent < cells[j].Agent
	})
	data := todayData{Day: midnight.Format("Monday 2 January 2006"), Chart: buildTimeline(cells),
		Latest: table{Rows: latest, Buttons: false}}
	for _, k := range []struct{ kind, label, class, decision string }{
		{"gate", "allowed by the gate", "allow", "allowed-gate"},
		{"rules", "allowed by rules", "allow", "allowed-rule"},
		{"grants", "allowed by grants", "allow", "allowed-grant"},
		{"judge", "allowed by the judge", "allow", "allowed-judge"},
		{"user", "allowed by you", "allow", "allowed-user"},
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
	if firstErr != nil {
		p.Error = firstErr.Error()
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

// decisionFilters are the decision filter's values, in the order shown.
var decisionFilters = []string{"allowed", "allowed-gate", "allowed-rule", "allowed-grant", "allowed-judge", "allowed-user", "asked", "denied"}

var decisionLabels = map[string]string{
	"allowed": "allowed (any)", "allowed-gate": "allowed by the gate", "allowed-rule": "allowed by rules",
	"allowed-grant": "allowed by grants", "allowed-judge": "allowed by the judge", "allowed-user": "allowed by you",
	"asked": "asked", "denied": "denied",
}

var sinceValues = []string{"1h", "today", "24h", "7d", "30d", "all"}
var sinceLabels = map[string]string{"1h": "last hour", "today": "today", "24h": "last 24 hours", "7d": "last 7 days", "30d": "last 30 days", "all": "all time"}

// sinceTime turns a since value into a time; "" and unknown values are
// the last 7 days (the page must stay fast without a filter).
func sinceTime(v string, now time.Time) time.Time {
	switch v {
	case "1h":
		return now.Add(-time.Hour)
	case "today":
		y, m, d := now.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	case "24h":
		return now.Add(-24 * time.Hour)
	case "30d":
		return now.AddDate(0, 0, -30)
	case "all":
		return time.Time{}
	default:
		return now.AddDate(0, 0, -7)
	}
}

// decisions: the log with filters, newest first, one page at a time.
func (s *Server) decisions(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	q := r.URL.Query()
	since := q.Get("since")
	if since == "" {
		since = "7d"
	}
	f := filter{Project: q.Get("project"), Agent: q.Get("agent"), Decision: q.Get("decision"), Text: q.Get("q"),
		Since: sinceTime(since, now), Before: q.Get("before")}
	if f.Decision != "" && decisionLabels[f.Decision] == "" {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("unknown decision filter %q", f.Decision))
		return
	}
	var rows []row
	more := ""
	err := s.src.each(f, func(e entry) bool {
		if len(rows) == pageRows {
			next := url.Values{}
			for k, v := range q {
				next[k] = v
			}
			next.Set("before", e.cursor())
			more = "/decisions?" + next.Encode()
			return false
		}
		rows = append(rows, s.row(e, now))
		return true
	})
	projects, agents, perr := s.src.facets()
	data := decisionsData{Table: table{Rows: rows}, Text: f.Text, More: more,
		Decisions: options(decisionFilters, decisionLabels, f.Decision),
		Since:     options(sinceValues, sinceLabels, since),
		Agents:    options(agents, nil, f.Agent)}
	for _, p := range projects {
		data.Projects = append(data.Projects, option{Value: p.Hash, Label: p.Root, Selected: p.Hash == f.Project})
	}
	data.Summary = fmt.Sprintf("%d decisions shown, newest first", len(rows))
	if more != "" {
		data.Summary += " (more below)"
	}
	p := page{Data: data}
	if err = errors.Join(err, perr); err != nil {
		p.Error = err.Error()
	}
	s.render(w, r, "decisions", "decisions", p)
}

type decisionsData struct {
	Projects, Agents, Decisions, Since []option
	Text, Summary, More                string
	Table                              table
}

// asks: the recent calls that were asked or denied, with the rule buttons.
func (s *Server) asks(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	var rows []row
	err := s.src.each(filter{Decision: "asked-or-denied", Since: now.AddDate(0, 0, -7)}, func(e entry) bool {
		rows = append(rows, s.row(e, now))
		return len(rows) < pageRows
	})
	p := page{Data: table{Rows: rows, Buttons: true}}
	if err != nil {
		p.Error = err.Error()
	}
	s.render(w, r, "asks", "asks and denials", p)
}

// why: one decision explained.
func (s *Server) why(w http.ResponseWriter, r *http.Request) {
	ref := refOf(r)
	e, text, err := s.src.why(ref)
	if err != nil {
		s.fail(w, r, statusOf(err), err)
		return
	}
	s.render(w, r, "why", "why #"+ref.ID, page{Data: whyData{ID: ref.ID, Row: s.row(e, s.opts.Now()), Text: text}})
}

type whyData struct {
	ID   string
	Row  row
	Text string
}

// rulePreview shows the rule "allow calls like this" or "always deny"
// would write; nothing is written until its form is posted.
func (s *Server) rulePreview(w http.ResponseWriter, r *http.Request) {
	ref, effect, err := ruleRequest(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	e, change, err := s.src.planRule(ref, effect)
	if err != nil && !errors.Is(err, errRefused) {
		s.fail(w, r, statusOf(err), err)
		return
	}
	data := ruleData{ID: ref.ID, Project: ref.Project, Effect: effect, Root: e.Root, ProjectName: projectName(e.Root),
		Action: actionText(e.Rec), WhyHref: s.row(e, s.opts.Now()).WhyHref(), Rule: change.Rule, File: change.File, Diff: change.Diff}
	if err != nil {
		data.Refusal = err.Error()
	}
	s.render(w, r, "rule", effect+" calls like this", page{Data: data})
}

type ruleData struct {
	ID, Project, Effect, Root, ProjectName, Action, WhyHref string
	Rule, File, Diff, Refusal                               string
}

// ruleWrite writes the rule previewed, as `perm-peer allow/deny ID` does.
func (s *Server) ruleWrite(w http.ResponseWriter, r *http.Request) {
	ref, effect, err := ruleRequest(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	change, err := s.src.writeRule(ref, effect)
	if err != nil {
		s.fail(w, r, statusOf(err), err)
		return
	}
	done := fmt.Sprintf("wrote %s into %s", change.Rule, change.File)
	http.Redirect(w, r, "/asks?"+url.Values{"done": {done}}.Encode(), http.StatusSeeOther)
}

func ruleRequest(r *http.Request) (recordRef, string, error) {
	ref := refOf(r)
	effect := r.FormValue("effect")
	if effect != "allow" && effect != "deny" {
		return ref, "", fmt.Errorf("effect must be allow or deny, not %q", effect)
	}
	if ref.Project == "" || ref.ID == "" {
		return ref, "", errors.New("which decision? (project and id are required)")
	}
	return ref, effect, nil
}

// grants: every project's grants, each with a revoke button.
func (s *Server) grants(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	list, err := s.src.grants()
	var rows []grantRow
	for _, g := range list {
		gr := grantRow{Grant: g.Grant, Project: g.Hash, Root: g.Root, ProjectName: projectName(g.Root)}
		gr.Created = localTime(g.Created, now)
		if g.AuditID != "" {
			gr.WhyHref = "/why?" + url.Values{"project": {g.Hash}, "id": {g.AuditID}}.Encode()
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
	ref := refOf(r)
	pattern, err := s.src.revoke(ref)
	if err != nil {
		s.fail(w, r, statusOf(err), err)
		return
	}
	http.Redirect(w, r, "/grants?"+url.Values{"done": {"revoked grant " + ref.ID + " " + pattern}}.Encode(), http.StatusSeeOther)
}

// projects: each project's chain, size and last activity.
func (s *Server) projects(w http.ResponseWriter, r *http.Request) {
	now := s.opts.Now()
	list, err := s.src.projectStatus()
	rows := make([]projectRow, 0, len(list))
	for _, p := range list {
		pr := projectRow{Root: p.Root, Path: p.Path, Records: p.Records, OK: p.Err == nil, Last: "never",
			Href: "/decisions?" + url.Values{"project": {p.Hash}, "since": {"all"}}.Encode()}
		if p.Err != nil {
			pr.Status = p.Err.Error()
		}
		if p.Last != "" {
			pr.Last = localTime(p.Last, now)
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
	res, err := s.src.replay([]byte(data.Policy), data.Project, sinceTime(data.SinceValue, now))
	if err != nil {
		s.renderWhatIf(w, r, data, err.Error())
		return
	}
	for i := range res.Changes {
		res.Changes[i].ProjectName = projectName(res.Changes[i].Root)
		res.Changes[i].WhyHref = "/why?" + url.Values{"project": {res.Changes[i].Project}, "id": {res.Changes[i].ID}}.Encode()
	}
	data.Result = &res
	s.renderWhatIf(w, r, data, "")
}

func (s *Server) renderWhatIf(w http.ResponseWriter, r *http.Request, data whatIfData, msg string) {
	projects, _, err := s.src.facets()
	if data.SinceValue == "" {
		data.SinceValue = "7d"
	}
	for _, p := range projects {
		data.Projects = append(data.Projects, option{Value: p.Hash, Label: p.Root, Selected: p.Hash == data.Project})
	}
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
	Result                      *replayResult
}

// refOf reads ?project=HASH&id=N (or the same form fields).
func refOf(r *http.Request) recordRef {
	return recordRef{Project: r.FormValue("project"), ID: r.FormValue("id")}
}

// recordRef names a record (or a grant) of one project's DB.
type recordRef struct {
	Project string // the DB's hash
	ID      string
}

// row builds the table row of an entry.
func (s *Server) row(e entry, now time.Time) row {
	label, class := outcome(e.Rec)
	if asked(e.Rec) && e.Rec.Decision != protocol.ReplyReject {
		label = "asked, you allowed"
		class = "ask"
	}
	return row{ID: e.Rec.ID, Project: e.Hash, Root: e.Root, ProjectName: projectName(e.Root), TS: e.Rec.TS,
		Time: localTime(e.Rec.TS, now), Agent: e.Agent, Decision: label, Class: class, DecidedBy: decider(e.Rec.DecidedBy),
		Action: actionText(e.Rec), Note: e.Rec.Reply.Feedback, CanRule: ruleable(e.Rec)}
}
