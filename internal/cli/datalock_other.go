//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package cli

import "errors"

const lockFileName = "earshot.lock"

var errDataDirBusy = errors.New("data dir lock held")

// lockDataDir does not lock on platforms without flock: restore's
// documentation says to stop serve first.
func lockDataDir(dir string, exclusive bool) (unlock func(), err error) { return func() {}, nil }
