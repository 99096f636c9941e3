package cmds

// A command whose name the gate cannot read is tried as the programs it
// may be: the trials are the programs whose answers depend on their
// arguments, each declared in the table (TestTrialsDeclared).

// GlobTrials are the programs a command name that is a glob (/bin/r?) is
// checked against: it runs whichever one the glob matches.
var GlobTrials = []string{"rm", "rmdir", "shred", "unlink", "mv", "cp", "dd", "chmod", "chown", "sh", "bash", "zsh", "dash",
	"eval", "curl", "wget", "nc", "ncat", "socat", "python", "python3", "perl", "ruby", "node", "git", "find", "xargs",
	"env", "sudo", "su", "tee", "truncate", "mkfs", "wipefs", "crontab", "scp", "rsync", "ssh"}

// DynamicTrials are the programs whose floors depend on their arguments
// (not mkfs, a floor whatever they are): a command name only known at run
// time may be any of them.
var DynamicTrials = []string{"rm", "shred", "dd", "chmod", "chown", "mv", "cp", "tee", "truncate",
	"curl", "wget", "nc", "socat", "scp", "rsync", "eval"}
