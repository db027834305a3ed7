package cli

import (
	"context"
	"os"
	"testing"
)

// Issue 24, point 7: EARSHOT_SQLITE_SYNC (or --sqlite-sync) reaches the
// database: PRAGMA synchronous reads back full by default and normal when
// asked, on the store every command opens. (Bad values: TestBadConfigurationIsRefused.)
func TestSQLiteSyncIsApplied(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", nil, "full"},
		{"normal", nil, "normal"},
		{"FULL", nil, "full"},
		{"full", []string{"--sqlite-sync", "normal"}, "normal"}, // the flag wins
	} {
		var cfg Config
		env := map[string]string{"EARSHOT_SQLITE_SYNC": tc.env, "EARSHOT_DATA": t.TempDir()}
		fs := serveFlags("serve", os.Stderr, func(k string) string { return env[k] }, &cfg)
		if err := parseFlags(fs, tc.args); err != nil {
			t.Fatal(err)
		}
		st, err := openStore(context.Background(), &cfg, true)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Synchronous(context.Background())
		st.Close()
		if err != nil || got != tc.want {
			t.Errorf("EARSHOT_SQLITE_SYNC=%q %v: synchronous = %q (%v), want %q", tc.env, tc.args, got, err, tc.want)
		}
	}
}
