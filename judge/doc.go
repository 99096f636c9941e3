// Package judge is perm-peer's LLM judge: it builds a provider-cache-friendly
// prompt (session context and the user's own rules, rebuilt once per dialog
// turn, then the turn's history and the call), asks an OpenAI-compatible model
// with one non-streaming request, and parses its answer strictly. Anything but
// one well-formed verdict escalates to the human; the judge can never turn a
// parse failure into an approval.
package judge
