package capability

import (
	"strings"
	"testing"
)

// TestPasswordRules is the password policy (ASVS V2.1 / V6.2): length as
// judged without surrounding or repeated spaces, the offline common list
// (also with digits or symbols added), patterns and the account's own words.
func TestPasswordRules(t *testing.T) {
	cases := []struct {
		pw, email string
		want      string // substring of the error; "" = accepted
	}{
		{"correct-horse-42", "owner@example.com", ""},
		{"a long password", "you@example.com", ""},
		{"  spaces around are kept  ", "a@example.com", ""},
		{"demo-Xk3vQ9Lm2PzR", "demo@earshot.local", ""},
		{"short-pw", "a@example.com", "at least 12 characters"},
		{"password    ", "a@example.com", "at least 12 characters"},
		{"    password", "a@example.com", "at least 12 characters"},
		{"pass      word", "a@example.com", "at least 12 characters"},
		{"password1234", "a@example.com", "most common"},
		{"!!Sunshine2024!!", "a@example.com", "most common"},
		{"p4ssw0rd12345", "a@example.com", "most common"},
		{"qwertyuiop123", "a@example.com", "most common"},
		{"abcabcabcabc", "a@example.com", "repeated or consecutive"},
		{"pass pass pass", "a@example.com", "repeated or consecutive"},
		{"123456789012", "a@example.com", "repeated or consecutive"},
		{"abcdefghijklm", "a@example.com", "repeated or consecutive"},
		{"earshot-earshot-2026", "a@example.com", "email or the product's name"},
		{"oliver.owner@example.com", "oliver.owner@example.com", "email or the product's name"},
		{"oliverowner-1", "oliver.owner@example.com", "email or the product's name"},
		{strings.Repeat("é", 37), "a@example.com", "at most 72 bytes"},
	}
	for _, c := range cases {
		err := checkPassword("new_password", c.pw, c.email)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.pw, err)
		case c.want != "" && err == nil:
			t.Errorf("%q accepted, want %q", c.pw, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: %v, want %q", c.pw, err, c.want)
		case err != nil:
			if e, ok := err.(*Error); !ok || e.Param != "new_password" || !strings.Contains(e.Message, "new_password") {
				t.Errorf("%q: the error does not name the field: %#v", c.pw, err)
			}
		}
	}
}
