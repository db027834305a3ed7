package cli

import (
	"strings"
	"testing"
)

// earshot help lists every command of docs/decisions.md#commands; a group
// (user, project, key) lists its subcommands: exit 0 when asked for, 2 with
// nothing or an unknown subcommand; every command refuses unknown flags.
func TestHelpAndGroups(t *testing.T) {
	contract := []string{"serve", "mcp", "demo", "user create", "project create", "key create", "key revoke", "key list", "backup", "restore", "classify", "version"}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		// Asked-for help is output: stdout, nothing on stderr.
		code, out, errs := runCLI(t, nil, args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
		for _, c := range contract {
			if !strings.Contains(out, "\n  "+c+" ") {
				t.Errorf("%v does not list %q on stdout:\n%s", args, c, out)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"user", "--help"}, 0, []string{"Usage: earshot user SUBCOMMAND", "  create "}},
		{[]string{"user", "-h"}, 0, []string{"  create "}},
		{[]string{"help", "user"}, 0, []string{"  create "}},
		{[]string{"user"}, 2, []string{"earshot user: a subcommand is needed", "  create "}},
		{[]string{"key"}, 2, []string{"  create ", "  list ", "  revoke "}},
		{[]string{"key", "--help"}, 0, []string{"  create ", "  list ", "  revoke "}},
		{[]string{"project"}, 2, []string{"  create ", "  set-plan "}},
		{[]string{"project", "bogus"}, 2, []string{`unknown subcommand "bogus"`, "  set-plan "}},
		{[]string{"key", "create", "-h"}, 0, []string{"-scopes"}},
		{[]string{"help", "key", "create"}, 0, []string{"-scopes"}},
		{[]string{"help", "serve"}, 0, []string{"-rate-limit", "EARSHOT_RATE_LIMIT"}},
		{[]string{"help", "frobnicate"}, 2, []string{`unknown command "frobnicate"`}},
		{[]string{"version", "--bogus"}, 2, []string{"-bogus"}},
		{[]string{"version", "extra"}, 2, []string{`unexpected argument "extra"`}},
		{[]string{"version", "-h"}, 0, nil},
	} {
		// Help asked for (exit 0) is on stdout; usage after a mistake
		// (exit 2) on stderr, with nothing on stdout.
		code, out, errs := runCLI(t, nil, tc.args...)
		got, other, where := errs, out, "stderr"
		if tc.code == 0 {
			got, other, where = out, errs, "stdout"
		}
		if code != tc.code || other != "" {
			t.Errorf("%v: exit %d (want %d), other stream %q", tc.args, code, tc.code, other)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: %s lacks %q:\n%s", tc.args, where, w, got)
			}
		}
	}
}
