package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"earshot/capability"
)

// The build stamps, set by scripts/release.sh and the Dockerfile with
// -ldflags "-X earshot/internal/cli.Version=v1.2.3
// -X earshot/internal/cli.Commit=<sha> -X earshot/internal/cli.BuildDate=<RFC 3339>".
// A plain `go build` leaves them empty and buildInfo falls back on what the
// Go toolchain records itself.
var (
	Version   = "dev"
	Commit    = ""
	BuildDate = ""
)

// build is what `earshot version` prints: which source, built when, by
// which Go, speaking which API version.
type build struct {
	Version, Commit, Date, Go, Platform string
	DateIsCommit                        bool // Date is the commit's time (an unstamped build)
}

// buildInfo reads the stamps, completed by the toolchain's build info for a
// binary built without them: `go build` in a Git checkout records the
// commit (vcs.revision, vcs.modified) and its time (vcs.time), and a module
// version when the checkout sits on a tag.
func buildInfo() build {
	info, _ := debug.ReadBuildInfo()
	return stampedBuild(build{Version: Version, Commit: Commit, Date: BuildDate, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}, info)
}

// stampedBuild completes the -ldflags stamps b with the toolchain's info
// (nil when the binary has none).
func stampedBuild(b build, info *debug.BuildInfo) build {
	if info == nil {
		return b.orUnknown()
	}
	if (b.Version == "" || b.Version == "dev") && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if b.Commit == "" && rev != "" {
		b.Commit = rev
		if modified {
			b.Commit += "-dirty"
		}
	}
	if b.Date == "" && at != "" {
		b.Date, b.DateIsCommit = at, true
	}
	return b.orUnknown()
}

// serverVersion is the version MCP clients are told: the stamp, or for an
// unstamped build "dev" with its commit when the toolchain recorded one.
func (b build) serverVersion() string {
	if b.Version == "dev" && b.Commit != "unknown" && len(b.Commit) >= 12 {
		return "dev+" + b.Commit[:12]
	}
	return b.Version
}

func (b build) orUnknown() build {
	if b.Version == "" {
		b.Version = "dev"
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}

// printVersion writes the first line every earlier version printed, then
// one "key: value" line per field, so scripts can grep either.
func printVersion(w io.Writer) {
	b := buildInfo()
	date := b.Date
	if b.DateIsCommit {
		date += " (commit time; the build was not stamped)"
	}
	fmt.Fprintf(w, "earshot %s (API version %s)\ncommit: %s\nbuilt:  %s\ngo:     %s %s\n",
		b.Version, capability.APIVersion, b.Commit, date, b.Go, b.Platform)
}

// isVersionFlag reports whether the first argument asks for the version
// the way most tools accept it: --version, -version or -v (earshot has no
// verbose switch for -v to collide with).
func isVersionFlag(arg string) bool {
	return arg == "--version" || arg == "-version" || arg == "-v"
}
