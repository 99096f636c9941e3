package gate

import (
	"log/slog"
	"sync"
)

// hostAllowSource reads the host's allow rules when a call first needs
// them: reading them may mean a file and a git process, which a hook call
// that meets no rule-clearable fact (almost every call) should not pay.
type hostAllowSource struct {
	once  sync.Once
	load  func() []string
	rules []*rule
}

// AddHostAllow adds the allow rules of the host's own user settings (see
// Policy.hostAllow). A rule perm-peer's syntax does not read is left out
// (it then clears nothing: the call asks, as without it).
func (p *Policy) AddHostAllow(rules []string) {
	p.hostAllow = append(p.hostAllow, parseHostRules(rules)...)
}

// AddHostAllowFunc is AddHostAllow with rules load reads on first use.
func (p *Policy) AddHostAllowFunc(load func() []string) {
	p.hostLater = append(p.hostLater, &hostAllowSource{load: load})
}

// hostRules are the host's allow rules, those read on first use included.
func (p *Policy) hostRules() []*rule {
	rules := p.hostAllow
	for _, src := range p.hostLater {
		src.once.Do(func() { src.rules = parseHostRules(src.load()) })
		rules = append(rules[:len(rules):len(rules)], src.rules...)
	}
	return rules
}

func parseHostRules(rules []string) []*rule {
	var out []*rule
	for _, s := range rules {
		r, err := parseRule(s)
		if err != nil {
			slog.Debug("host allow rule not read", "rule", s, "err", err)
			continue
		}
		out = append(out, r)
	}
	return out
}
