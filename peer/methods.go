package peer

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

func (s *Server) requestPermission(ctx context.Context, method string, raw *json.RawMessage) result {
	var p protocol.RequestPermissionParams
	if err := decodeParams(method, raw, &p); err != nil {
		return result{err: err}
	}
	if p.SessionID == "" {
		return result{err: missing("/sessionId")}
	}
	w, sess, res := s.worldAndSession(p.SessionID)
	if sess == nil {
		return res
	}
	turn := sess.useTurn(p.Turn)
	reply, err := s.decide(ctx, w, sess, turn, p.ToolCall, s.canPrompt())
	if err != nil {
		return internalError(err)
	}
	return result{value: reply}
}

func (s *Server) worldAndSession(id string) (*world, *session, result) {
	w, err := s.world()
	if err != nil {
		return nil, nil, internalError(err)
	}
	sess, err := s.session(id)
	if err != nil {
		return nil, nil, internalError(err)
	}
	return w, sess, result{}
}

func (s *Server) check(method string, raw *json.RawMessage) result {
	var p protocol.CheckParams
	if err := decodeParams(method, raw, &p); err != nil {
		return result{err: err}
	}
	w, err := s.world()
	if err != nil {
		return internalError(err)
	}
	// A dry run creates nothing: a live session lends its cache and cwd,
	// otherwise a throwaway one stands in.
	s.mu.Lock()
	sess := s.sessions[p.SessionID]
	s.mu.Unlock()
	if sess == nil {
		sess = newSession(protocol.Session{ID: p.SessionID})
	}
	v := s.analyze(w, sess, p.ToolCall, true)
	res := protocol.CheckResult{Decision: v.Decision, Risk: v.Risk, HumanOnly: v.HumanOnly,
		Reasons: v.Reasons, Facts: v.Facts}
	if res.Reasons == nil {
		res.Reasons = []protocol.Reason{}
	}
	if res.Facts == nil {
		res.Facts = []protocol.Fact{}
	}
	return result{value: res}
}

// maxAuditPage bounds one permission/audit page.
const maxAuditPage = 1000

func (s *Server) audit(method string, raw *json.RawMessage) result {
	var p protocol.AuditParams
	if err := decodeParams(method, raw, &p); err != nil {
		return result{err: err}
	}
	w, err := s.world()
	if err != nil {
		return internalError(err)
	}
	if p.Limit <= 0 || p.Limit > maxAuditPage {
		p.Limit = maxAuditPage
	}
	recs, next, err := w.db.Audit(store.AuditQuery{SessionID: p.SessionID, After: p.After, Limit: p.Limit})
	if err != nil {
		return internalError(err)
	}
	if recs == nil {
		recs = []protocol.AuditRecord{}
	}
	return result{value: protocol.AuditResult{Records: recs, Next: next}}
}

func (s *Server) rules(method string, raw *json.RawMessage) result {
	var p protocol.RulesParams
	if err := decodeParams(method, raw, &p); err != nil {
		return result{err: err}
	}
	if p.SessionID == "" {
		return result{err: missing("/sessionId")}
	}
	w, err := s.world()
	if err != nil {
		return internalError(err)
	}
	rules := s.userRules(w, p.SessionID)
	if rules == nil {
		rules = []protocol.UserRule{}
	}
	return result{value: protocol.RulesResult{Rules: rules, Rendered: judge.RenderRules(rules)}}
}

func (s *Server) grantsList(method string, raw *json.RawMessage) result {
	var p protocol.GrantsListParams
	if err := decodeParams(method, raw, &p); err != nil {
		return result{err: err}
	}
	w, err := s.world()
	if err != nil {
		return internalError(err)
	}
	grants, err := w.db.Grants()
	if err != nil {
		return internalError(err)
	}
	if grants == nil {
		grants = []protocol.Grant{}
	}
	return result{value: protocol.GrantsListResult{Grants: grants}}
}

func (s *Server) grantsRevoke(method string, raw *json.RawMessage) result {
	var p protocol.GrantsRevokeParams
	if err := decodeParams(method, raw, &p); err != nil {
		return result{err: err}
	}
	if p.ID == "" {
		return result{err: missing("/id")}
	}
	w, err := s.world()
	if err != nil {
		return internalError(err)
	}
	grants, err := w.db.Grants()
	if err != nil {
		return internalError(err)
	}
	pattern := ""
	for _, g := range grants {
		if g.ID == p.ID {
			pattern = g.Pattern
		}
	}
	if err := w.db.RevokeGrant(p.ID); errors.Is(err, store.ErrNotFound) {
		return failure(protocol.CodeInvalidParams, "invalid params: /id: no grant "+p.ID)
	} else if err != nil {
		return internalError(err)
	}
	// A revoked grant stops covering calls in live sessions too.
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range s.sessions {
		sess.mu.Lock()
		kept := sess.cache[:0]
		for _, g := range sess.cache {
			if g.Pattern != pattern {
				kept = append(kept, g)
			}
		}
		sess.cache = kept
		sess.mu.Unlock()
	}
	return result{value: protocol.Empty{}}
}
