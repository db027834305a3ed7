package cli

import "testing"

func TestServerVersion(t *testing.T) {
	for _, c := range []struct {
		b    build
		want string
	}{
		{build{Version: "v1.2.3", Commit: "0123456789abcdef"}, "v1.2.3"},
		{build{Version: "dev", Commit: "0123456789abcdef"}, "dev+0123456789ab"},
		{build{Version: "dev", Commit: "unknown"}, "dev"},
	} {
		if got := c.b.serverVersion(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}
