package gate

import "log/slog"

// AddHostAllow adds the allow rules of the host's own user settings (see
// Policy.hostAllow). A rule perm-peer's syntax does not read is left out
// (it then clears nothing: the call asks, as without it).
func (p *Policy) AddHostAllow(rules []string) {
	for _, s := range rules {
		r, err := parseRule(s)
		if err != nil {
			slog.Debug("host allow rule not read", "rule", s, "err", err)
			continue
		}
		p.hostAllow = append(p.hostAllow, r)
	}
}
