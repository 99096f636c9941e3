package judge

import "strings"

// Fixed texts the peer sends to the agent when the judge or a tier, not the
// user, answered. They name who decided and, for a rejection, tell the agent
// not to try a variation of the same call.
const (
	// AggressiveNote is the feedback of an escalation the aggressive tier
	// approved.
	AggressiveNote = "Approved automatically by perm-peer (aggressive tier): the judge was unsure and this session lets such calls run without review. The user did not see this call."
	// PassiveNote is the feedback of an escalation the passive tier rejected.
	PassiveNote = "Rejected automatically by perm-peer (passive tier): the judge was unsure and this session rejects such calls instead of asking. The user did not see this call. Do not retry it or a variation of it; ask the user in the chat if it is needed."
)

// RejectFeedback is the feedback of a judge rejection (deny + critical),
// quoting the judge's reason on one line.
func RejectFeedback(reason string) string {
	reason = strings.TrimRight(strings.Join(strings.Fields(reason), " "), ".")
	if len(reason) > 300 {
		reason = reason[:cutHead(reason, 300)] + "…"
	}
	if reason == "" {
		reason = "no reason given"
	}
	return "Rejected by perm-peer's automatic judge, not by the user: " + reason +
		". Do not retry this call or a variation of it; ask the user in the chat if it is needed."
}
