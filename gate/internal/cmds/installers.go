package cmds

import (
	"slices"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// Installer is a program that installs something every later shell or
// commit runs (direnv allow, pre-commit install): with one of Subs as
// its first word, or on every call when Subs is empty, it writes
// persistence, which only a person may approve (SPEC §5.4). Why says so.
type Installer struct {
	Cmd  *argv.Command
	Subs []string
	Why  string
}

// Installs says the words args (the first at first) install.
func (in *Installer) Installs(first string, n int) bool {
	return len(in.Subs) == 0 || n > 0 && slices.Contains(in.Subs, first)
}

// installer is an installer's entry; its flags are not declared yet.
func installer(name, why string, subs []string, ex ...argv.Example) *Installer {
	return &Installer{Cmd: &argv.Command{Name: name, Class: argv.Installer, Unknown: argv.Ignore, Examples: ex}, Subs: subs, Why: why}
}

var installers = []*Installer{
	installer("direnv", "direnv allow lets .envrc run in every new shell", []string{"allow", "permit", "grant"},
		want("allow", "human human.persistence-write"), want("status", "ask")),
	installer("pre-commit", "pre-commit installs git hooks", []string{"install", "install-hooks"},
		want("install", "human human.persistence-write"), want("run --all-files", "ask")),
	installer("husky", "husky installs git hooks", nil, want("install", "human human.persistence-write")),
	installer("lefthook", "lefthook installs git hooks", []string{"install"},
		want("install", "human human.persistence-write"), want("run pre-commit", "ask")),
}

var installerIndex = index(installers, func(in *Installer) string { return in.Cmd.Name })

// InstallerOf is the installer declared for name, or nil.
func InstallerOf(name string) *Installer { return installerIndex()[name] }

// installerCmds are the installers' declarations.
func installerCmds() []*argv.Command {
	out := make([]*argv.Command, 0, len(installers))
	for _, in := range installers {
		out = append(out, in.Cmd)
	}
	return out
}
