package app

import (
	"runtime/debug"
	"strings"
)

// Version is the version nod was built as: the module's (`go install
// …@v1.2.3` records it), or one the go command derived from the git
// checkout (a pseudo-version, "+dirty" when files were changed), else
// "dev".
func Version() string {
	info, _ := debug.ReadBuildInfo()
	return moduleVersion(info)
}

func moduleVersion(info *debug.BuildInfo) string {
	if info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// versionLine is what `nod version` prints: the version, the commit it
// was built from and the Go release. A build in a git checkout records
// the commit (vcs.revision, and vcs.modified for uncommitted changes);
// `go install …@version` builds from the module's zip, whose version
// names the commit, and -buildvcs=false (or a checkout the go command
// does not recognise as one, such as a git worktree) records none.
func versionLine(info *debug.BuildInfo) string {
	var b strings.Builder
	b.WriteString("nod " + moduleVersion(info))
	if info == nil {
		b.WriteString(" (no build information)")
		return b.String()
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case rev != "" && modified == "true":
		b.WriteString(" (revision " + rev + "+dirty, ")
	case rev != "":
		b.WriteString(" (revision " + rev + ", ")
	default:
		b.WriteString(" (no revision recorded, ")
	}
	b.WriteString(info.GoVersion + ")")
	return b.String()
}
