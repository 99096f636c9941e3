package judge

import (
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// The trusted environment is what the user, in their own policy, says their
// work legitimately touches: their git remotes, domains, buckets and
// registries, and the targets that always need them. It is rendered once,
// when the judge is made, and heads every turn's prefix, so it is as
// byte-stable as the system prompt and cached with it. Nothing the agent
// does in a session reaches it: a remote the agent adds, or renames to
// look like a trusted one, is not in this list, and the system prompt
// tells the model that only what is listed here is trusted, by URL or host,
// never by a name.

// Environment limits, in bytes of rendered text.
const (
	maxEnvEntries     = 50
	maxEnvDescription = 1000
)

// RenderEnvironment is the <trusted_environment> section for env, "" when
// env lists nothing.
func RenderEnvironment(env *protocol.JudgeEnvironment) string {
	if env == nil {
		return ""
	}
	var b strings.Builder
	if d := strings.TrimSpace(env.Description); d != "" {
		b.WriteString("description: \"" + clip(clean(d, true), maxEnvDescription) + "\"\n")
	}
	envList(&b, "trusted git remotes", env.GitRemotes)
	envList(&b, "trusted domains", env.Domains)
	envList(&b, "trusted buckets", env.Buckets)
	envList(&b, "trusted registries", env.Registries)
	envList(&b, "sensitive targets (always escalate)", env.Sensitive)
	if b.Len() == 0 {
		return ""
	}
	return "<trusted_environment>\n" + b.String() + "</trusted_environment>\n"
}

func envList(b *strings.Builder, label string, items []string) {
	var kept []string
	for _, it := range items {
		if it = field(strings.TrimSpace(it), maxFieldBytes); it != "" && len(kept) < maxEnvEntries {
			kept = append(kept, it)
		}
	}
	if len(kept) == 0 {
		return
	}
	b.WriteString(label + ":\n")
	for _, it := range kept {
		b.WriteString("- " + it + "\n")
	}
}

// buildPrefix is the turn's prefix: the trusted environment, then the
// session context and the user's rules.
func (j *Judge) buildPrefix(sc SessionContext, rules []protocol.UserRule) string {
	if j == nil {
		return BuildPrefix(sc, rules)
	}
	return j.env + BuildPrefix(sc, rules)
}
