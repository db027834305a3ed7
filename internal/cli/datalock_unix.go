//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package cli

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockFileName is the data dir's lock: every process that opens the
// database holds it shared (several serve processes may share a data
// dir), restore holds it exclusive. The kernel drops it when a process
// dies, so a crash leaves no stale lock.
const lockFileName = "earshot.lock"

// errDataDirBusy: the lock is held the other way.
var errDataDirBusy = errors.New("data dir lock held")

// lockDataDir takes the data dir's lock, shared or exclusive, without
// waiting. It returns errDataDirBusy when another process holds it the
// other way. A data dir where the lock file cannot be created (read-only)
// is not locked: the command goes on, as it did before there was a lock.
func lockDataDir(dir string, exclusive bool) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFileName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return func() {}, nil
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errDataDirBusy
		}
		return func() {}, nil // a filesystem without locks
	}
	return func() { f.Close() }, nil
}
