package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// Passwords of user create and set-password come from EARSHOT_PASSWORD or
// standard input, never from the command line: arguments are visible to
// every local user (ps, /proc/PID/cmdline) and stay in shell history.
// --password still works for old scripts, with a warning.

// passwordFlag defines the deprecated --password flag, bound to
// EARSHOT_PASSWORD.
func passwordFlag(fs *cliFlags) *string {
	p := fs.String("password", "", "DEPRECATED: visible to other local users in the process list; pipe the password on stdin or set EARSHOT_PASSWORD")
	fs.envVar("password", "EARSHOT_PASSWORD")
	return p
}

// readPassword returns the password: from --password (with a warning) or
// EARSHOT_PASSWORD when set, else from stdin (a terminal is asked without
// echo; piped input is read up to its first line end, nothing else is
// trimmed: spaces are part of a password).
func readPassword(fs *cliFlags, flagValue string, stdin io.Reader, stderr io.Writer) (string, error) {
	if fs.given["password"] {
		fmt.Fprintln(stderr, "warning: --password is deprecated: other local users can read it in the process list; pipe the password on stdin or set EARSHOT_PASSWORD")
	}
	if flagValue != "" {
		return flagValue, nil
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "Password: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("reading the password: %w", err)
		}
		return nonEmptyPassword(string(b))
	}
	if stdin == nil {
		return "", usagef("the password is required: pipe it on stdin or set EARSHOT_PASSWORD")
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password from stdin: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	return nonEmptyPassword(line)
}

func nonEmptyPassword(pw string) (string, error) {
	if pw == "" {
		return "", usagef("the password is required: pipe it on stdin or set EARSHOT_PASSWORD")
	}
	return pw, nil
}
