package wire

import (
	"testing"
	"time"
)

func TestPlainText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"entities only", "Acme &#39;X&#39; review &amp; more", "Acme 'X' review & more"},
		{"tags and paragraphs", "<p>I tried <i>Acme</i> today.</p><p>It&#x27;s <b>fast</b>.</p>", "I tried Acme today.\n\nIt's fast."},
		{"br and li", "line one<br>line two<ul><li>a</li><li>b</li></ul>", "line one\nline two\n\na\nb"},
		{"script and style dropped", "<style>p{color:red}</style>Hello<script type=\"x\">alert('acme')</script> world", "Hello world"},
		{"comments dropped", "a<!-- hidden acme -->b", "ab"},
		{"whitespace collapsed", "  lots \t of\u00a0 space \n\n\n\n next  ", "lots of space\n\nnext"},
		{"less-than kept", "a < b and 3<4", "a < b and 3<4"},
		{"escaped markup stays text", "&lt;script&gt;x&lt;/script&gt;", "<script>x</script>"},
		{"double escaped", "Tom &amp;amp; Jerry", "Tom & Jerry"},
		{"cdata", "<![CDATA[<b>Acme</b> rocks]]>", "Acme rocks"},
		{"nbsp entity", "Acme&nbsp;&nbsp;Reuters", "Acme Reuters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PlainText(c.in); got != c.want {
				t.Errorf("PlainText(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestNormalizeHandle(t *testing.T) {
	for in, want := range map[string]string{
		"@acme":       "acme",
		"  @@acme  ":  "acme",
		"acme":        "acme",
		"u/kaveman98": "kaveman98",
		"/u/kaveman":  "kaveman",
		"":            "",
		"Dev Person":  "Dev Person",
	} {
		if got := NormalizeHandle(in); got != want {
			t.Errorf("NormalizeHandle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	want := time.Date(2024, 5, 3, 14, 15, 7, 0, time.UTC)
	for _, in := range []string{
		"2024-05-03T14:15:07Z",
		"2024-05-03T14:15:07.000Z",
		"2024-05-03T14:15:07+0000",      // Threads
		"2024-05-03T16:15:07+0200",      // Threads, other offset
		"2024-05-03T07:15:07-07:00",     // Apple
		"Fri, 03 May 2024 14:15:07 GMT", // Google News
		"Fri, 3 May 2024 14:15:07 GMT",
		"Fri, 03 May 2024 14:15:07 +0000",
		"Fri, 03 May 2024 14:15:07 UT",
		"03 May 2024 14:15:07 +0000",
		"20240503T141507Z", // GDELT
		"Fri, 03 May 2024 10:15:07 EDT",
		"Fri, 03 May 2024 07:15:07 PDT",
	} {
		got, err := ParseTimestamp(in)
		if err != nil {
			t.Errorf("ParseTimestamp(%q): %v", in, err)
			continue
		}
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTimestamp(%q) = %v, want %v UTC", in, got, want)
		}
	}
	d, err := ParseTimestamp("2024-05-01")
	if err != nil || !d.Equal(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date only = %v, %v", d, err)
	}
	if !IsDateOnly("2024-05-01") || IsDateOnly("2024-05-01T00:00:00Z") {
		t.Error("IsDateOnly")
	}
	for _, bad := range []string{"", "yesterday", "2024-13-45"} {
		if _, err := ParseTimestamp(bad); err == nil {
			t.Errorf("ParseTimestamp(%q) accepted", bad)
		}
	}
	if got := UnixTime(1714564800.5); !got.Equal(time.Date(2024, 5, 1, 12, 0, 0, 5e8, time.UTC)) {
		t.Errorf("UnixTime = %v", got)
	}
}
