package collect

import (
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// A scheduler's owner name (in monitor leases) says which process holds a
// lease: host:pid:start:random, start being when this process started
// (hex nanoseconds) and random telling apart two schedulers of one
// process. From it a scheduler can tell, without waiting for the lease to
// run out, that a holder on its own host is dead (ownerDead): a restarted
// process reclaims its earlier incarnation's leases at once, and a
// survivor on the same host takes over a killed sibling's at once.

// processStart identifies this run of the process: it is set once, when
// the package is initialised, and never changes. A restarted process (even
// one that gets the same pid again, as a container's pid 1 does) has
// another.
var processStart = strconv.FormatInt(time.Now().UnixNano(), 16)

func defaultOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	crand.Read(b)
	return fmt.Sprintf("%s:%d:%s:%s", host, os.Getpid(), processStart, hex.EncodeToString(b))
}

// leaseHolder is an owner name taken apart; ok is false for a name not
// made by defaultOwner (a configured Owner), whose liveness is unknown.
type leaseHolder struct {
	host  string
	pid   int
	start string // "" in the names of releases before start was added
	ok    bool
}

func parseOwner(owner string) leaseHolder {
	f := strings.Split(owner, ":")
	var h leaseHolder
	switch len(f) {
	case 3: // host:pid:random, before start was added
		h.host = f[0]
	case 4:
		h.host, h.start = f[0], f[2]
	default:
		return h
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 || h.host == "" {
		return h
	}
	h.pid, h.ok = pid, true
	return h
}

// ownerDead reports whether the holder named owner is known to be dead: it
// ran on this host (same host name) and either its process is gone, or its
// pid is this process's own but from an earlier start (a restart that got
// the same pid). A holder on another host, or one whose name says nothing
// (a configured Owner), is never known dead: its leases run out instead.
// Hosts sharing a database must have distinct host names (Docker and
// Kubernetes give each container or pod its own).
func ownerDead(owner, self string) bool {
	if owner == self {
		return false
	}
	h, me := parseOwner(owner), parseOwner(self)
	if !h.ok || !me.ok || h.host != me.host {
		return false
	}
	if h.pid == me.pid {
		// This very process holds the pid now: the holder is an earlier
		// run, unless it is another scheduler of this run.
		return h.start != me.start
	}
	return processGone(h.pid)
}
