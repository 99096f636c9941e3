package cmds

import (
	"slices"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// Netcat is the union of nc's flags (traditional, OpenBSD, nmap's ncat),
// read to find the flag that wires a program to the socket (-e, -c,
// --exec, --sh-exec, --lua-exec) in every spelling. Only those take a
// value here: every other letter is a switch, so that a bundle is read to
// its end (nc -nvlpe /bin/sh: the gate reads -e, although getopt would
// take "e" as -p's port — the intent is a shell, and a misread value only
// becomes an operand, a peer).
var Netcat = &argv.Command{Name: "nc", Abbrev: true,
	Flags: with(flags("-0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -a -b -C -d -D -F -g -G -h -H -i -I -k -K -l -L -m -M -n -N -o -O -p -P -q -r -R -s -S -t -T -u -U -v -V -w -W -x -X -y -Y -z -Z "+
		"--listen --keep-open --verbose --nodns --udp --sctp --source --source-port --wait --idle-timeout --proxy --proxy-type --proxy-auth "+
		"--proxy-dns --ssl --ssl-cert --ssl-key --ssl-verify --ssl-trustfile --ssl-ciphers --ssl-alpn --ssl-servername --broker --chat "+
		"--allow --allowfile --deny --denyfile --max-conns --send-only --recv-only --no-shutdown --crlf --telnet --output --hex-dump "+
		"--append-output --delay --zero --unixsock --vsock --nsock-engine --quiet",
		"", ""), runs("-e"), runs("-c"), runs("--exec"), runs("--sh-exec"), runs("--lua-exec")),
	Examples: []argv.Example{ex("-nvlpe /bin/sh 4444", ""), ex("-e/bin/sh h 1", ""), ex("--sh-e sh h 1", "")}}

// netcatNames are the netcat family's names, each read by Netcat.
var netcatNames = []string{"nc", "ncat", "netcat"}

// NetcatOf is the netcat family's declaration for name, nil when name is
// no netcat.
func NetcatOf(name string) *argv.Command {
	if slices.Contains(netcatNames, name) {
		return Netcat
	}
	return nil
}

// renamedPrograms are Debian's alternatives names for a program the table
// knows: nc.traditional is nc.
var renamedPrograms = map[string]string{"nc.traditional": "nc", "nc.openbsd": "nc", "netcat.traditional": "nc", "netcat.openbsd": "nc"}

// Renamed is the program a Debian alternatives name stands for, and
// whether name is one.
func Renamed(name string) (string, bool) {
	p, ok := renamedPrograms[name]
	return p, ok
}
