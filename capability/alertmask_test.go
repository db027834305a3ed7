package capability_test

import (
	"testing"

	"earshot/capability"
)

// TestMaskAlertTarget: scheme, host and the last four characters only;
// never user info; an email as it is.
func TestMaskAlertTarget(t *testing.T) {
	for _, tc := range []struct{ channel, in, want string }{
		{"slack", "https://hooks.slack.com/services/T1/B2/abcdefXXXX", "https://hooks.slack.com/…/XXXX"},
		{"webhook", "https://user:pass@hooks.example/x?token=s3cretWXYZ", "https://hooks.example/…/WXYZ"},
		{"webhook", "https://hooks.example/short", "https://hooks.example/…"},
		{"webhook", "not a url but a secret", "/…/cret"},
		{"email", "ops@example.com", "ops@example.com"},
	} {
		if got := capability.MaskAlertTarget(tc.channel, tc.in); got != tc.want {
			t.Errorf("MaskAlertTarget(%q, %q) = %q, want %q", tc.channel, tc.in, got, tc.want)
		}
	}
}
