package gate

import (
	"path/filepath"
	"regexp"
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
	if r, ok := cmds.Renamed(name); ok {
		name = r
	}
	if cmds.NetcatOf(name) != nil && netcatListens(args) {
		return name + " -l listens on every network interface"
	}
	if name == "socat" {
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
