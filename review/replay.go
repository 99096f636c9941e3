package review

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/protocol"
)

// ReplayOptions name the recorded calls to replay and the candidate
// policy.
type ReplayOptions struct {
	// Query selects the recorded calls (Limit is ignored).
	Query Query
	// UserPolicy is the candidate user policy file ("" keeps the current one).
	UserPolicy string
	// ProjectPolicy is the candidate project policy file, for every
	// project replayed ("" keeps each project's own).
	ProjectPolicy string
}

// Replay outcomes: what the deterministic pipeline (the gate, the
// project's grants, the mode) does with a call. Ask covers the judge too in
// ai mode: no judge is called in a replay.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

// ReplayChange is one recorded call whose outcome the candidate changes.
type ReplayChange struct {
	Entry  Entry  `json:"entry"`
	Before string `json:"before"` // allow, ask or deny under today's policy
	After  string `json:"after"`  // under the candidate
	// BeforeBy and AfterBy say what decides, in plain words.
	BeforeBy string `json:"beforeBy"`
	AfterBy  string `json:"afterBy"`
}

// ReplayReport is what a candidate policy would change.
type ReplayReport struct {
	Calls int `json:"calls"` // calls replayed
	// MoreAllowed counts calls that would run without a person; MoreAsked
	// those that ran without one and would now be asked; NewlyDenied those
	// that would now be denied; NoLongerDenied those denied today that
	// would not be.
	MoreAllowed    int `json:"moreAllowed"`
	MoreAsked      int `json:"moreAsked"`
	NewlyDenied    int `json:"newlyDenied"`
	NoLongerDenied int `json:"noLongerDenied"`
	// Transitions counts every change by "before→after".
	Transitions map[string]int `json:"transitions"`
	// Today and Candidate count every replayed call by outcome (allow,
	// ask, deny) under each policy: Ask is the prompts a session gets.
	Today     map[string]int `json:"today"`
	Candidate map[string]int `json:"candidate"`
	Changes   []ReplayChange `json:"changes"`
}

// Replay re-decides recorded calls under today's policy and under the
// candidate, with the deterministic pipeline: no judge call, no write.
func (r *Reviewer) Replay(o ReplayOptions) (ReplayReport, error) {
	rep := ReplayReport{Transitions: map[string]int{}, Today: map[string]int{}, Candidate: map[string]int{}}
	q := o.Query
	q.Limit = 0
	entries, err := r.Log(q)
	if err != nil && entries == nil {
		return rep, err
	}
	byProject := map[string][]Entry{}
	var order []Project
	for _, e := range entries {
		if _, ok := byProject[e.Where.DBPath]; !ok {
			order = append(order, e.Where)
		}
		byProject[e.Where.DBPath] = append(byProject[e.Where.DBPath], e)
	}
	for _, p := range order {
		if err := r.replayProject(p, byProject[p.DBPath], o, &rep); err != nil {
			return rep, fmt.Errorf("project %s: %w", p.label(), err)
		}
	}
	sort.SliceStable(rep.Changes, func(i, j int) bool { return rep.Changes[i].Entry.Time.After(rep.Changes[j].Entry.Time) })
	return rep, err
}

// replayer decides calls of one project under one policy, remembering
// each distinct call's outcome: a history repeats its calls.
type replayer struct {
	r   *Reviewer
	p   Project
	pol *gate.Policy
	// grants are the persistent grants by session: the project's, and
	// each recorded session's own (allow --session), as the peer read them
	grants map[string][]gate.Grant
	memo   map[string]replayed
}

type replayed struct{ outcome, by string }

func (r *Reviewer) replayProject(p Project, entries []Entry, o ReplayOptions, rep *ReplayReport) error {
	now, err := r.Policy(p)
	if err != nil {
		return fmt.Errorf("today's policy: %w", err)
	}
	user, project := r.userPolicy, ProjectPolicyPath(p.Root)
	if o.UserPolicy != "" {
		user = o.UserPolicy
	}
	if o.ProjectPolicy != "" {
		project = o.ProjectPolicy
	}
	cand, err := gate.LoadPolicy(user, project, p.Root)
	if err != nil {
		return fmt.Errorf("candidate policy: %w", err)
	}
	sessions := make([]string, len(entries))
	for i, e := range entries {
		sessions[i] = e.Session
	}
	grants, err := r.sessionGrants(p, sessions)
	if err != nil {
		return err
	}
	// Calls are independent: each worker re-decides a share of them
	// with its own memo, so the replay uses every core.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(entries)/256))
	results := make([][2]replayed, len(entries))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			before := &replayer{r: r, p: p, pol: now, grants: grants, memo: map[string]replayed{}}
			after := &replayer{r: r, p: p, pol: cand, grants: grants, memo: map[string]replayed{}}
			for i := w; i < len(entries); i += workers {
				if !madeByAllow(entries[i].Record) {
					results[i] = [2]replayed{before.decide(entries[i]), after.decide(entries[i])}
				}
			}
		}(w)
	}
	wg.Wait()
	for i, e := range entries {
		if madeByAllow(e.Record) {
			continue // the user's perm-peer allow, not an agent's call
		}
		rep.Calls++
		b, a := results[i][0], results[i][1]
		rep.Today[b.outcome]++
		rep.Candidate[a.outcome]++
		if b.outcome == a.outcome {
			continue
		}
		rep.Transitions[b.outcome+"→"+a.outcome]++
		switch {
		case a.outcome == Allow:
			rep.MoreAllowed++
		case a.outcome == Deny:
			rep.NewlyDenied++
		case b.outcome == Allow:
			rep.MoreAsked++
		}
		if b.outcome == Deny {
			rep.NoLongerDenied++
		}
		rep.Changes = append(rep.Changes, ReplayChange{Entry: e, Before: b.outcome, After: a.outcome, BeforeBy: b.by, AfterBy: a.by})
	}
	return nil
}

func (rp *replayer) decide(e Entry) replayed {
	call := e.Record.ToolCall
	key := e.Session + "\x00" + e.Cwd + "\x00" + call.Tool + "\x00" + string(call.Kind) + "\x00" + string(call.RawInput)
	if len(call.Locations) == 0 {
		if d, ok := rp.memo[key]; ok {
			return d
		}
	}
	v := gate.Analyze(call, rp.r.env(rp.p, rp.pol, e.Cwd, rp.grants[e.Session]))
	d := modeOutcome(v, rp.pol)
	if len(call.Locations) == 0 {
		rp.memo[key] = d
	}
	return d
}

// modeOutcome is gate.Policy.Outcome (the pipeline without the judge and
// the session cache) with what decides it in plain words.
func modeOutcome(v gate.Verdict, pol *gate.Policy) replayed {
	out := string(pol.Outcome(v))
	switch {
	case v.Decision != protocol.DecisionAsk:
		return replayed{out, decider(v, pol).Words}
	case out == Allow:
		return replayed{out, string(pol.Mode()) + " mode"}
	case v.HumanOnly:
		return replayed{out, "only a person may approve"}
	case pol.Mode() == protocol.ModeAI:
		return replayed{out, "the AI judge, or you"}
	}
	return replayed{out, "you are asked"}
}
