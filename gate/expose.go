package gate

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// Exposing the machine (SPEC §5.4) is human-only: a tunnel that makes a
// local port reachable from the internet (ngrok, cloudflared tunnel,
// ssh -R), or a server bound to every interface (0.0.0.0, ::) rather than
// to localhost. The files it serves and the service's own holes are then
// anyone's.

// anyInterface matches a word that binds every interface: 0.0.0.0, ::,
// [::], with a port, or as an option's value (--host=0.0.0.0).
var anyInterface = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:-[-\w]*=|[\w.-]*=)?(?:0\.0\.0\.0|\[::\]|::)(?::\d+)?$`)
})

// socatListen matches a socat address that accepts connections:
// TCP-LISTEN:8080, tcp4-l:80, UDP-RECVFROM:53, OPENSSL-LISTEN:443.
var socatListen = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^((?:tcp|udp|sctp|dccp|udplite|openssl|ssl|vsock)[46]?-(?:listen|l|recvfrom|recv))(?::|$)`)
})

// socatLoopback matches a listen address bound to localhost (bind=127.0.0.1).
var socatLoopback = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i),bind=(?:127\.[\d.]+|localhost|\[?::1\]?)(?:,|:|$)`)
})

// netcatListens says nc's words listen (-l, --listen, in any spelling) on
// an address that is not localhost's.
func netcatListens(args []string) bool {
	inv := cmds.Netcat.Parse(args, nil)
	if !inv.Has("-l", "--listen") {
		return false
	}
	for _, o := range inv.Operands {
		if v := args[o]; v == "localhost" || v == "::1" || strings.HasPrefix(v, "127.") {
			return false
		}
	}
	return true
}

// guardExposure makes exec facts that expose the machine human-only.
func guardExposure(facts []*rfact) {
	for _, f := range facts {
		if f.kind != protocol.FactExec || f.safe != nil || f.floor != nil || f.human != nil || len(f.argv) == 0 {
			continue
		}
		if why := exposes(filepath.Base(f.argv[0]), f.argv[1:]); why != "" {
			f.human = reason("human.expose", why)
		}
	}
}

// exposes says how a command exposes the machine, "" when it does not.
func exposes(name string, args []string) string {
	t := cmds.NetOf(name)
	if t != nil && t.Net == cmds.Tunnel && tunnelCall(t.Opens, args) {
		return name + " opens a tunnel from the internet to this machine"
	}
	if t != nil && t.Forwards && sshRemoteForward(args) {
		return name + " -R lets the remote host reach ports of this machine"
	}
	if t != nil && t.Forwards && sshOpenForward(args) {
		return name + " -L/-D listens on every network interface"
	}
	if t != nil && t.Hook == "openssl" && opensslServes(args) {
		return "openssl s_server listens on every network interface"
	}
	if r, ok := cmds.Renamed(name); ok {
		name = r
	}
	if cmds.NetcatOf(name) != nil && netcatListens(args) {
		return name + " -l listens on every network interface"
	}
	if t != nil && t.Uploads == "socat" { // its addresses are socat's
		for _, v := range args {
			if m := socatListen().FindStringSubmatch(v); m != nil && !socatLoopback().MatchString(v) {
				return "socat " + m[1] + " listens on every network interface"
			}
		}
	}
	for _, v := range args {
		if anyInterface().MatchString(v) {
			return "binds a server to every network interface (" + v + "), not to localhost"
		}
	}
	return ""
}

// tunnelCall reports a tunnel program's call that opens one: its first
// operand is one of subs (any but version and help when subs is nil).
func tunnelCall(subs []string, args []string) bool {
	for _, v := range args {
		if strings.HasPrefix(v, "-") {
			if v == "--version" || v == "-v" || v == "--help" || v == "-h" {
				return false
			}
			continue
		}
		if subs == nil {
			return v != "version" && v != "help" && v != "completion"
		}
		for _, s := range subs {
			if v == s {
				return true
			}
		}
		return false
	}
	return subs == nil && len(args) > 0
}

// sshRemoteForward reports ssh -R (also in a cluster, attached, or as
// -o RemoteForward), and -g, which opens local forwards to other hosts.
func sshRemoteForward(args []string) bool {
	for i, v := range args {
		lv := strings.ToLower(v)
		switch {
		case strings.HasPrefix(lv, "-oremoteforward") || strings.HasPrefix(lv, "-ogatewayports=yes"):
			return true
		case v == "-o" && i+1 < len(args):
			o := strings.ToLower(args[i+1])
			if strings.HasPrefix(o, "remoteforward") || strings.HasPrefix(o, "gatewayports=yes") || strings.HasPrefix(o, "gatewayports yes") {
				return true
			}
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			// a cluster of ssh's no-value flags may end in R or g: -fNR, -NgL
			for _, c := range v[1:] {
				if c == 'R' || c == 'g' {
					return true
				}
				if !strings.ContainsRune("46AaCfGgKkMNnqsTtVvXxY", c) {
					break // a value flag: the rest is its value
				}
			}
		}
	}
	return false
}

// sshOpenForward reports a local or dynamic forward (-L, -D, also in a
// cluster or attached, and -o LocalForward/DynamicForward) bound to every
// interface: an empty bind address, *, 0.0.0.0 or :: (ssh(1): "an empty
// address or '*' indicates that the port should be available from all
// interfaces"). Anyone who reaches this machine then reaches the forward.
func sshOpenForward(args []string) bool {
	for i, v := range args {
		lv := strings.ToLower(v)
		switch {
		case strings.HasPrefix(lv, "-o") && len(v) > 2:
			if listen, ok := sshForwardOption(v[2:]); ok && everyInterface(listen, 2) {
				return true
			}
		case v == "-o" && i+1 < len(args):
			if listen, ok := sshForwardOption(args[i+1]); ok && everyInterface(listen, 2) {
				return true
			}
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'L' || c == 'D' {
					spec := v[j+1:]
					if spec == "" && i+1 < len(args) {
						spec = args[i+1]
					}
					n := 4 // -L BIND:PORT:HOST:HOSTPORT
					if c == 'D' {
						n = 2 // -D BIND:PORT
					}
					if everyInterface(spec, n) {
						return true
					}
					break
				}
				if !strings.ContainsRune("46AaCfGgKkMNnqsTtVvXxY", rune(c)) {
					break // a value flag: the rest is its value
				}
			}
		}
	}
	return false
}

// sshForwardOption is the listen address (BIND:PORT) of an ssh option
// LocalForward or DynamicForward (KEY=LISTEN TARGET, KEY LISTEN TARGET).
func sshForwardOption(opt string) (listen string, ok bool) {
	k, val, found := strings.Cut(opt, "=")
	if !found || strings.ContainsAny(k, " \t") {
		k, val, _ = strings.Cut(opt, " ")
	}
	switch strings.ToLower(strings.TrimSpace(k)) {
	case "localforward", "dynamicforward":
		f := strings.Fields(val)
		if len(f) == 0 {
			return "", false
		}
		return f[0], true
	}
	return "", false
}

// everyInterface reports a forward's spec of want fields, the first the
// bind address, that binds every interface: BIND:PORT:HOST:HOSTPORT (-L)
// or BIND:PORT (-D, LocalForward's listen address) with BIND empty, *,
// 0.0.0.0 or :: ([::], or "/" for ":" with IPv6). Without BIND
// (PORT:HOST:HOSTPORT) ssh binds localhost.
func everyInterface(spec string, want int) bool {
	var fields []string
	switch {
	case strings.HasPrefix(spec, "["):
		b, r, found := strings.Cut(spec[1:], "]")
		if !found || r == "" || r[0] != ':' {
			return false
		}
		fields = append([]string{b}, strings.Split(r[1:], ":")...)
	case strings.Contains(spec, "/"):
		fields = strings.Split(spec, "/")
	default:
		fields = strings.Split(spec, ":")
	}
	if len(fields) != want {
		return false
	}
	b := fields[0]
	return b == "" || b == "*" || b == "0.0.0.0" || b == "::"
}

// opensslServes reports openssl s_server not bound to localhost: without
// -accept HOST:PORT it listens on every interface (port 4433), and -WWW
// or -HTTP serve the working directory's files to whoever connects.
func opensslServes(args []string) bool {
	if !slices.Contains(args, "s_server") {
		return false
	}
	for i, v := range args {
		if v == "-accept" && i+1 < len(args) {
			host, _, found := strings.Cut(args[i+1], ":")
			if strings.HasPrefix(args[i+1], "[") {
				host, _, found = strings.Cut(strings.TrimPrefix(args[i+1], "["), "]")
			}
			if found && (host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")) {
				return false
			}
		}
	}
	return true
}
