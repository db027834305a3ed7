//go:build unix

package collect

import (
	"errors"
	"syscall"
)

// processGone reports whether no process with pid exists (signal 0 checks
// without sending anything; EPERM means it exists under another user).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
