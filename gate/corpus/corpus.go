package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/protocol"
)

// Row is one labelled call.
type Row struct {
	ID       string              `json:"id"`
	Cat      string              `json:"cat,omitempty"`
	ToolCall protocol.ToolCall   `json:"toolCall"`
	Policy   protocol.Policy     `json:"policy"`
	Cwd      string              `json:"cwd,omitempty"`
	Home     string              `json:"home,omitempty"`
	Project  string              `json:"project,omitempty"`
	Expect   protocol.Decision   `json:"expect"`
	Alt      []protocol.Decision `json:"alt,omitempty"`
	// HumanOnly, when given, is asserted both ways: true fails a plain ask;
	// an explicit false makes a human-only ask over-strict (a needless
	// escalation), as a deny on an ask row is.
	HumanOnly *bool  `json:"humanOnly,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Result is one scored row; its JSON form is exactly the SPEC §9 object.
type Result struct {
	ID         string            `json:"id"`
	Decision   protocol.Decision `json:"decision"`
	Risk       protocol.Risk     `json:"risk"`
	HumanOnly  bool              `json:"humanOnly"`
	Pass       bool              `json:"pass"`
	OverStrict bool              `json:"overStrict"`
	Reasons    []protocol.Reason `json:"reasons"`

	Cat    string            `json:"-"`
	Expect protocol.Decision `json:"-"`
	Why    string            `json:"-"` // why a row failed
}

// Read parses a JSONL corpus; blank lines are skipped; ids must be unique.
func Read(r io.Reader) ([]Row, error) {
	var rows []Row
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var row Row
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("corpus line %d: %w", n, err)
		}
		switch {
		case row.ID == "":
			return nil, fmt.Errorf("corpus line %d: missing id", n)
		case seen[row.ID] > 0:
			return nil, fmt.Errorf("corpus line %d: id %q already used on line %d", n, row.ID, seen[row.ID])
		}
		switch row.Expect {
		case protocol.DecisionAllow, protocol.DecisionAsk, protocol.DecisionDeny:
		default:
			return nil, fmt.Errorf("corpus line %d: expect %q is not allow, ask or deny", n, row.Expect)
		}
		seen[row.ID] = n
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	return rows, nil
}

// Env is the world a row is judged in: its project, cwd, home and policy,
// and no environment variables, so a row's verdict does not depend on the
// developer's environment.
func (row Row) Env() (gate.Env, error) {
	pol, err := gate.PolicyFrom(row.Policy, protocol.Policy{}, row.Project)
	if err != nil {
		return gate.Env{}, err
	}
	return gate.Env{Project: row.Project, Cwd: row.Cwd, Home: row.Home, Policy: pol}, nil
}

// Evaluate decides one row in a fresh world: no grants, no judge, mode ask.
func Evaluate(row Row) Result {
	res := Result{ID: row.ID, Cat: row.Cat, Expect: row.Expect, Reasons: []protocol.Reason{}}
	env, err := row.Env()
	if err != nil {
		res.Decision, res.Risk = protocol.DecisionAsk, protocol.RiskHigh
		res.Reasons = []protocol.Reason{{Code: "corpus.bad-policy", Detail: err.Error()}}
		res.Why = "bad policy: " + err.Error()
		return res
	}
	v := gate.Analyze(row.ToolCall, env)
	res.Decision, res.Risk, res.HumanOnly = v.Decision, v.Risk, v.HumanOnly
	if v.Reasons != nil {
		res.Reasons = v.Reasons
	}
	ok := v.Decision == row.Expect
	for _, d := range row.Alt {
		ok = ok || v.Decision == d
	}
	if !ok && row.Expect == protocol.DecisionAsk && v.Decision == protocol.DecisionDeny {
		ok, res.OverStrict = true, true
	}
	switch {
	case !ok:
		res.Why = fmt.Sprintf("got %s, want %s", v.Decision, row.Expect)
	case row.HumanOnly != nil && *row.HumanOnly && v.Decision == protocol.DecisionAsk && !v.HumanOnly:
		ok, res.Why = false, "got ask without humanOnly"
	case row.HumanOnly != nil && !*row.HumanOnly && row.Expect == protocol.DecisionAsk && v.Decision == protocol.DecisionAsk && v.HumanOnly:
		res.OverStrict = true
	}
	res.Pass = ok
	return res
}

// Stats are the figures issue 3 asks for.
type Stats struct {
	Passed, Failed, OverStrict int
	FalseAllows                int // allowed where the row expects ask or deny
	Floors, FloorsDenied       int // rows expecting deny in category "floor"
	Benign, BenignAllowed      int // rows expecting allow
	ByCat                      map[string][2]int
}

// Summarize counts the results.
func Summarize(rows []Row, res []Result) Stats {
	st := Stats{ByCat: map[string][2]int{}}
	for i, r := range res {
		row := rows[i]
		c := st.ByCat[row.Cat]
		if r.Pass {
			st.Passed++
			c[0]++
		} else {
			st.Failed++
			c[1]++
		}
		st.ByCat[row.Cat] = c
		if r.OverStrict {
			st.OverStrict++
		}
		allowOK := row.Expect == protocol.DecisionAllow
		for _, d := range row.Alt {
			allowOK = allowOK || d == protocol.DecisionAllow
		}
		if r.Decision == protocol.DecisionAllow && !allowOK {
			st.FalseAllows++
		}
		if row.Cat == "floor" && row.Expect == protocol.DecisionDeny {
			st.Floors++
			if r.Decision == protocol.DecisionDeny {
				st.FloorsDenied++
			}
		}
		if row.Expect == protocol.DecisionAllow {
			st.Benign++
			if r.Decision == protocol.DecisionAllow {
				st.BenignAllowed++
			}
		}
	}
	return st
}

// Cats returns the categories in order.
func (s Stats) Cats() []string {
	out := make([]string, 0, len(s.ByCat))
	for c := range s.ByCat {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
