package peer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/redact"
	"github.com/perm-peer/perm-peer/store"
)

// Feedback the agent reads on a rejection. Each names the real decider and
// tells the agent not to work around it; the full reason is in _meta.reason
// and the audit log. The tiers' fixed texts live with the judge.
const (
	feedbackPolicy   = "blocked by policy; do not retry a variation; ask the user if it is needed"
	feedbackJudge    = "rejected by the safety judge; do not retry a variation; ask the user if it is needed"
	feedbackHeadless = "rejected: this call needs a human and none could be asked; do not retry a variation; ask the user if it is needed"
	feedbackUser     = "rejected by the user"
	// toolResultPrefix introduces a user's approval note in the tool result.
	toolResultPrefix = "User approved this tool call with feedback: "
)

// MaxRuleRecords bounds the user-sourced records read to build the user
// rules of a session: the judge keeps at most judge.MaxRules rules, and each
// record read costs a decode, so reading more only costs time.
const MaxRuleRecords = 100

// decision is one finished decision: the reply for the requester and the
// record to audit.
type decision struct {
	reply protocol.PermissionReply
	rec   protocol.AuditRecord
	note  string // the user's note, for the turn history
	// deferred: the asker left the call to the host's own prompt; nothing
	// is recorded, and reply's _meta says why a human is needed.
	deferred bool
}

// request is one permission request on its way through the pipeline.
type request struct {
	snapshot        // the session as the request found it
	arrival  uint64 // the request's frame number (Server.arrival)
	w        *world
	sess     *session
	call     protocol.ToolCall
	asker    Asker // nil: no human can be asked (headless)
	verdict  gate.Verdict
}

// errUnsettled is decide's answer, in settledOnly mode, for a call that
// needs the judge or the user: nothing was decided or recorded.
var errUnsettled = errors.New("the call needs the judge or the user")

// errCancelled is decide's answer for a request cancelled before it was
// decided: the attempt is audited as a headless reject, and the requester
// gets -32800. A request decided before its cancellation arrived gets its
// decision, which is what its audit record says (Server.runRequest).
var errCancelled = errors.New("request cancelled before a decision")

// decide runs SPEC §4's pipeline for one call and returns the reply after its
// audit record is durable. An error means nothing was allowed. turn is the
// request's own turn number (0: the session's current turn). With
// settledOnly, a call that would need the judge or the user is left alone:
// decide returns errUnsettled, having recorded and granted nothing, so that
// it can run again where blocking is allowed (see Server.Handle). The
// session it prepared (the turn the request names is started) is what that
// second run prepares first anyway, idempotently.
//
// asker puts a call that needs a human to one (nil: none can be asked, the
// call is rejected headless). When it answers ErrDeferred, decide records
// nothing and returns ErrDeferred with the reply's _meta explaining why a
// human is needed: the host asks its own user (see Asker).
func (s *Server) decide(ctx context.Context, w *world, sess *session, turn int, call protocol.ToolCall, asker Asker, settledOnly bool) (protocol.PermissionReply, error) {
	rq := &request{snapshot: sess.begin(turn), arrival: s.arrival(ctx), w: w, sess: sess, call: call, asker: asker}
	rq.verdict = s.analyze(w, sess, call)
	d, ok := s.settle(rq)
	if !ok {
		if settledOnly {
			return protocol.PermissionReply{}, errUnsettled
		}
		d = s.deliberate(ctx, rq)
	}
	if d.deferred && ctx.Err() == nil {
		return d.reply, &Deferral{HumanOnly: rq.verdict.HumanOnly}
	}
	return s.commit(ctx, rq, d)
}

// commit records a finished decision and only then applies it: a user's
// grant, the turn's history. A request cancelled before this point is
// recorded as a headless reject and answered errCancelled.
func (s *Server) commit(ctx context.Context, rq *request, d decision) (protocol.PermissionReply, error) {
	if s.beforeRecord != nil {
		s.beforeRecord(ctx)
	}
	if claim, ok := ctx.Value(commitClaimKey{}).(func()); ok {
		claim()
	}
	cancelled := ctx.Err() != nil
	if cancelled {
		// Cancelled: the requester gets -32800, but the attempt is audited.
		d = rq.finish(protocol.ReplyReject, protocol.ByHeadless, protocol.SourceSystem, "request cancelled before a decision", feedbackHeadless)
	}
	rec, err := rq.w.db.AppendAudit(context.WithoutCancel(ctx), d.rec)
	if err != nil {
		return protocol.PermissionReply{}, fmt.Errorf("record decision: %w", err)
	}
	d.reply.Meta.AuditID = rec.ID
	if s.afterRecord != nil {
		s.afterRecord(ctx)
	}
	if d.rec.Grant != "" && d.rec.Source == protocol.SourceUser {
		s.applyGrant(rq.w, rq.sess, rq.verdict, rec)
	}
	rq.sess.mu.Lock()
	if rq.sess.epoch == rq.epoch {
		rq.sess.history = append(rq.sess.history, judge.HistoryEntry{Action: rq.verdict.Action, Outcome: string(d.reply.Reply), Note: d.note})
	}
	rq.sess.mu.Unlock()
	if cancelled {
		return d.reply, errCancelled
	}
	return d.reply, nil
}

// analyze runs the gate with the session's "always" cache, then, only when
// they could change the answer, with the persistent grants (the project's
// and the session's own): the fast path does not read them. A session-cache
// hit is confirmed against the grants, because the cache mirrors them and a
// grant revoked anywhere (another peer process, the CLI) must stop covering
// calls here too.
func (s *Server) analyze(w *world, sess *session, call protocol.ToolCall) gate.Verdict {
	sess.mu.Lock()
	env := gate.Env{Project: w.scope, Cwd: sess.info.Cwd, Home: w.home, Policy: w.policy, Protected: w.protected, Getenv: os.LookupEnv, Dirs: w.dirs}
	sess.mu.Unlock()
	if env.Cwd == "" {
		env.Cwd = w.project
	} else if !filepath.IsAbs(env.Cwd) {
		env.Cwd = filepath.Join(w.project, env.Cwd)
	}
	env.Grants = sess.cached()
	v := gate.Analyze(call, env)
	open := v.Decision == protocol.DecisionAsk && !v.HumanOnly && v.DecidedBy == ""
	if v.DecidedBy != protocol.BySession && !open {
		return v
	}
	grants, err := PersistentGrants(w.db, sess.info.ID)
	if err != nil {
		slog.Warn("read grants", "err", err)
		if v.DecidedBy == protocol.BySession { // cannot confirm the cache: fail closed
			env.Grants = nil
			return gate.Analyze(call, env)
		}
		return v
	}
	if v.DecidedBy == protocol.BySession && !sess.pruneRevoked(grants) {
		return v
	}
	env.Grants = append(sess.cached(), grants...)
	return gate.Analyze(call, env)
}

// PersistentGrants are the stored grants that may cover a call of session
// id: the project's, then the session's own (perm-peer allow --session),
// which cover as the session's "always" does.
func PersistentGrants(db *store.DB, id string) ([]gate.Grant, error) {
	project, err := db.Grants()
	if err != nil {
		return nil, err
	}
	own, err := db.SessionGrants(id)
	if err != nil {
		return nil, err
	}
	out := make([]gate.Grant, 0, len(project)+len(own))
	for _, g := range project {
		out = append(out, gate.Grant{Pattern: g.Pattern, By: protocol.ByGrant, ID: g.ID})
	}
	for _, g := range own {
		out = append(out, gate.Grant{Pattern: g.Pattern, By: protocol.BySession, ID: g.ID})
	}
	return out, nil
}

// settle is the part of the pipeline that needs neither the judge nor the
// user: the gate's allow or deny (floors, rules, grants, known-safe),
// human-only calls in full mode, and the full and auto modes. It reports
// false for every other call; deliberate decides those. It does not audit.
func (s *Server) settle(rq *request) (decision, bool) {
	v := rq.verdict
	mode, _ := s.modeOf(rq.w, rq.info)
	switch {
	case v.Decision == protocol.DecisionDeny:
		by := v.DecidedBy
		if by == "" {
			by = protocol.ByRule
		}
		return rq.finish(protocol.ReplyReject, by, protocol.SourceAuto, reasonText(v), feedbackPolicy), true
	case v.Decision == protocol.DecisionAllow:
		by := v.DecidedBy
		if by == "" {
			by = protocol.ByGate
		}
		return rq.finish(protocol.ReplyOnce, by, protocol.SourceAuto, reasonText(v), ""), true
	case v.HumanOnly:
		if mode == protocol.ModeFull {
			return rq.finish(protocol.ReplyOnce, protocol.ByMode, protocol.SourceAuto, "full mode: "+reasonText(v), ""), true
		}
		return decision{}, false
	}
	switch mode {
	case protocol.ModeFull, protocol.ModeAuto:
		return rq.finish(protocol.ReplyOnce, protocol.ByMode, protocol.SourceAuto, string(mode)+" mode: "+reasonText(v), ""), true
	}
	return decision{}, false
}

// deliberate decides a call settle left open: the judge in AI mode (for a
// call that is not human-only), else the user. It does not audit.
func (s *Server) deliberate(ctx context.Context, rq *request) decision {
	mode, tier := s.modeOf(rq.w, rq.info)
	reason := reasonText(rq.verdict)
	if mode == protocol.ModeAI && !rq.verdict.HumanOnly {
		return s.judged(ctx, rq, tier, reason)
	}
	return s.escalate(ctx, rq, reason)
}

// judged is step 7: the judge, then the tier for its escalations.
func (s *Server) judged(ctx context.Context, rq *request, tier protocol.Tier, gateReason string) decision {
	j := rq.w.judge
	if j == nil {
		return s.escalate(ctx, rq, gateReason+" (AI mode, but no judge is configured)")
	}
	key := judge.TurnKey{Project: rq.w.project, Session: rq.info.ID, Turn: rq.epoch}
	if j.Tripped(key) {
		return s.escalate(ctx, rq, gateReason+fmt.Sprintf(" (the judge rejected %d calls this turn; the rest of the turn goes to you)", judge.BreakerLimit))
	}
	rq.sess.mu.Lock()
	history := append([]judge.HistoryEntry(nil), rq.sess.history...)
	rq.sess.mu.Unlock()
	// The grants are read here, not taken from the build: the prefix is
	// rebuilt when they changed since (a grant revoked mid-turn must not
	// stay a "Persistent grant" rule), and the basis must name what the
	// rules were built from.
	grants := readGrants(rq.w)
	prefix := j.Prefix(key, grantsBasis(grants), func() (judge.SessionContext, []protocol.UserRule) {
		return s.sessionContext(rq.w, rq.sess), s.userRules(rq.w, rq.info.ID, grants)
	})
	jd := j.DecideTurn(ctx, key, prefix, history, judgeCall(rq.w, rq.call, rq.verdict))
	details := jd.Details
	why := details.Reason
	if why == "" {
		why = details.Error
	}
	var d decision
	switch jd.Outcome {
	case judge.Allow:
		d = rq.finish(protocol.ReplyOnce, protocol.ByJudge, protocol.SourceJudge, "judge: "+why, "")
	case judge.Reject:
		d = rq.finish(protocol.ReplyReject, protocol.ByJudge, protocol.SourceJudge, "judge: "+why, feedbackJudge)
	default:
		// The tiers act on the model's own doubt only. An escalation that
		// is really a failure (timeout, HTTP error, unparsable reply, the
		// breaker opening under a concurrent call), that the model rated
		// critical, or that is a "deny" below critical goes to the human
		// under the aggressive tier: neither a judge failure nor a judge
		// that wanted to refuse ever becomes an approval.
		doubt := details.Error == "" && details.Risk != protocol.RiskCritical && !jd.Denied && !j.Tripped(key)
		switch {
		case tier == protocol.TierAggressive && doubt:
			d = rq.finish(protocol.ReplyOnce, protocol.ByJudge, protocol.SourceJudge, "judge escalated (aggressive tier): "+why, judge.AggressiveNote)
		case tier == protocol.TierPassive:
			d = rq.finish(protocol.ReplyReject, protocol.ByJudge, protocol.SourceJudge, "judge escalated (passive tier): "+why, judge.PassiveNote)
		default:
			d = s.escalate(ctx, rq, "the judge escalated: "+why)
		}
	}
	d.rec.Judge = &details
	return d
}

// finish builds a decision made without the user.
func (rq *request) finish(kind protocol.ReplyKind, by protocol.DecidedBy, src protocol.Source, reason, feedback string) decision {
	v := rq.verdict
	if kind == protocol.ReplyReject && src != protocol.SourceUser {
		// tell the agent the safer way, where the gate knows one
		if alt := gate.Alternative(v); alt != "" && feedback != "" {
			feedback += ". Instead: " + alt
		}
	}
	reply := protocol.PermissionReply{Reply: kind, Feedback: feedback}
	rec := rq.record(reply, by, src)
	reply.Meta = &protocol.ReplyMeta{DecidedBy: by, Risk: v.Risk, Reason: reason}
	return decision{reply: reply, rec: rec}
}

// record is the audit record of a reply (reply verbatim, without _meta).
func (rq *request) record(reply protocol.PermissionReply, by protocol.DecidedBy, src protocol.Source) protocol.AuditRecord {
	v := rq.verdict
	verbatim := reply
	verbatim.Meta = nil
	return protocol.AuditRecord{
		SessionID:       rq.info.ID,
		ParentSessionID: rq.info.ParentID,
		Turn:            rq.turn,
		ToolCall:        redact.ToolCall(rq.call),
		Action:          redact.String(v.Action),
		Resources:       v.Resources,
		Decision:        reply.Reply,
		DecidedBy:       by,
		Source:          src,
		Reply:           verbatim,
		Risk:            v.Risk,
		Reasons:         asArrived(v.Reasons, rq.call.RawInput),
	}
}

// reasonText is the gate's explanation in one line.
func reasonText(v gate.Verdict) string {
	var parts []string
	for _, r := range v.Reasons {
		t := r.Detail
		if t == "" {
			t = r.Code
		}
		if r.Rule != "" {
			t += " [" + r.Rule + "]"
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "no rule or known-safe command covers this call"
	}
	return strings.Join(parts, "; ")
}

// applyGrant makes a user's "always" take effect: in this session at once,
// and for the project through a persistent grant.
func (s *Server) applyGrant(w *world, sess *session, v gate.Verdict, rec protocol.AuditRecord) {
	sess.mu.Lock()
	sess.cache = append(sess.cache, gate.Grant{Pattern: rec.Grant, By: protocol.BySession})
	sess.mu.Unlock()
	covers := rec.Grant
	if v.Always != nil {
		covers = v.Always.Covers
	}
	if _, err := w.db.AddGrant(protocol.Grant{Pattern: rec.Grant, Covers: covers, SessionID: rec.SessionID, AuditID: rec.ID}); err != nil {
		slog.Warn("persist grant", "pattern", rec.Grant, "err", err)
	}
}

// sessionContext is the judge's <session_context> for a session.
func (s *Server) sessionContext(w *world, sess *session) judge.SessionContext {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	cwd := "."
	if sess.info.Cwd != "" {
		cwd = judge.RelPaths(w.project, []string{sess.info.Cwd})[0]
	}
	return judge.SessionContext{Agent: sess.info.Agent, Cwd: cwd, UserMessage: sess.userMessage}
}

// readGrants reads the project's grants for the judge's rules; none when
// they cannot be read, so that no rule claims a grant.
func readGrants(w *world) []protocol.Grant {
	grants, err := w.db.Grants()
	if err != nil {
		slog.Warn("read grants", "err", err)
		return nil
	}
	return grants
}

// grantsBasis names a set of grants for judge.Judge.Prefix.
func grantsBasis(grants []protocol.Grant) string {
	var b strings.Builder
	for _, g := range grants {
		fmt.Fprintf(&b, "%s=%s\n", g.ID, g.Pattern)
	}
	return b.String()
}

// userRules are the session's user rules as the judge reads them, with the
// project's grants. An "always" whose grant has since been revoked is no
// longer a rule.
func (s *Server) userRules(w *world, sessionID string, grants []protocol.Grant) []protocol.UserRule {
	recs, err := w.db.UserReplies(sessionID, MaxRuleRecords)
	if err != nil {
		slog.Warn("read user replies", "session", sessionID, "err", err)
	}
	live := make(map[string]bool, len(grants))
	for _, g := range grants {
		live[g.Pattern] = true
	}
	kept := recs[:0]
	for _, r := range recs {
		if r.Grant == "" || live[r.Grant] {
			kept = append(kept, r)
		}
	}
	return judge.Relativize(w.project, judge.ExtractRules(kept, grants))
}

func judgeCall(w *world, call protocol.ToolCall, v gate.Verdict) judge.Call {
	return judge.Call{Tool: call.Tool, Kind: string(call.Kind), Title: redact.String(call.Title),
		Action: redact.String(v.Action), Input: string(redact.JSON(call.RawInput)), Paths: judge.RelPaths(w.project, v.Resources)}
}
