package judge

// Fixed texts the peer sends to the agent when a tier, not the user,
// answered a judge escalation. They name who decided and, for a rejection,
// tell the agent not to try a variation of the same call. (A judge rejection
// itself gets the peer's terse policy-style feedback, SPEC §3.4.)
const (
	// AggressiveNote is the feedback of an escalation the aggressive tier
	// approved.
	AggressiveNote = "Approved automatically by perm-peer (aggressive tier): the judge was unsure and this session lets such calls run without review. The user did not see this call."
	// PassiveNote is the feedback of an escalation the passive tier rejected.
	PassiveNote = "Rejected automatically by perm-peer (passive tier): the judge was unsure and this session rejects such calls instead of asking. The user did not see this call. Do not retry it or a variation of it; ask the user in the chat if it is needed."
)
