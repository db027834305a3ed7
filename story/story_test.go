package story

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCanonicalSameArticle(t *testing.T) {
	groups := [][]string{
		{
			"https://www.example.com/news/acme-outage?utm_source=twitter&utm_medium=social",
			"http://example.com/news/acme-outage/",
			"https://EXAMPLE.com/news/acme-outage#comments",
			"https://m.example.com/news/acme-outage?fbclid=IwAR0abc&gclid=xyz",
			"https://example.com:443/news/acme-outage?ref=hn",
			"www.example.com/news/acme-outage",
		},
		{
			"https://twitter.com/acme/status/1790000000000000001?s=20&t=abc",
			"https://x.com/i/status/1790000000000000001",
			"https://mobile.twitter.com/someone_else/status/1790000000000000001/photo/1",
			"https://x.com/i/web/status/1790000000000000001",
		},
		{
			"https://www.reddit.com/r/saas/comments/1abcde/acme_is_down_again/?utm_source=share",
			"https://old.reddit.com/r/saas/comments/1abcde/",
			"https://reddit.com/comments/1abcde",
		},
		{
			"https://youtu.be/dQw4w9WgXcQ?si=abcdef",
			"https://www.youtube.com/watch?v=dQw4w9WgXcQ&feature=share&list=ignored",
			"https://m.youtube.com/shorts/dQw4w9WgXcQ",
		},
		{
			"https://blog.example.org/post?id=7&lang=en",
			"https://blog.example.org/post?lang=en&id=7&utm_campaign=x",
		},
	}
	seen := map[string]int{}
	for gi, g := range groups {
		want, ok := Canonical(g[0])
		if !ok {
			t.Fatalf("group %d: %q not canonical", gi, g[0])
		}
		for _, u := range g[1:] {
			got, ok := Canonical(u)
			if !ok || got != want {
				t.Errorf("Canonical(%q) = %q, %v; want %q (as %q)", u, got, ok, want, g[0])
			}
		}
		// The store keeps canonical links and canonicalises them again
		// (with a scheme) when it rebuilds its index.
		if again, ok := Canonical("https://" + want); !ok || again != want {
			t.Errorf("canonical form %q is not stable: %q", want, again)
		}
		if other, dup := seen[want]; dup {
			t.Errorf("groups %d and %d share %q", other, gi, want)
		}
		seen[want] = gi
	}
}

func TestCanonicalKeepsDifferentPages(t *testing.T) {
	pairs := [][2]string{
		{"https://example.com/a", "https://example.com/b"},
		{"https://example.com/a", "https://example.org/a"},
		{"https://example.com/Post", "https://example.com/post"}, // paths are case-sensitive
		{"https://example.com/p?id=1", "https://example.com/p?id=2"},
		{"https://shop.example.com/a", "https://example.com/a"},
		{"https://example.com:8443/a", "https://example.com/a"},
		// A Reddit comment is not its thread; App Store reviews of one app
		// differ by their fragment.
		{"https://www.reddit.com/r/saas/comments/1abcde/acme_is_down/kx9z1/", "https://www.reddit.com/r/saas/comments/1abcde/acme_is_down/"},
		{"https://www.reddit.com/r/saas/comments/1abcde/acme_is_down/kx9z1/", "https://www.reddit.com/r/saas/comments/1abcde/acme_is_down/kx9z2/"},
		{"https://apps.apple.com/us/app/id123?see-all=reviews#111", "https://apps.apple.com/us/app/id123?see-all=reviews#222"},
	}
	for _, p := range pairs {
		a, _ := Canonical(p[0])
		b, _ := Canonical(p[1])
		if a == b {
			t.Errorf("%q and %q both canonicalise to %q", p[0], p[1], a)
		}
	}
}

func TestCanonicalRefuses(t *testing.T) {
	for _, u := range []string{
		"", "not a url", "ftp://example.com/file", "mailto:a@example.com", "https://",
		"https://example.com", "https://www.example.com/", "https://example.com/?utm_source=x", // home pages
		"https://x.com/acme", "https://twitter.com/acme?lang=en&s=20", "https://www.reddit.com/r/saas/", // profiles, communities
		"https://www.youtube.com/@acme", "https://www.linkedin.com/company/acme/", "https://bsky.app/profile/acme.bsky.social",
	} {
		if c, ok := Canonical(u); ok {
			t.Errorf("Canonical(%q) = %q, want refused", u, c)
		}
	}
}

func TestLinks(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"no links here", nil},
		{"Read this: https://example.com/a. And (see http://b.example/x?y=1)!", []string{"https://example.com/a", "http://b.example/x?y=1"}},
		{"HTTPS://EXAMPLE.COM/Up, www.example.org/page… end", []string{"HTTPS://EXAMPLE.COM/Up", "www.example.org/page"}},
		{"email me at foo@www.example.com", nil},
		{"<a href=\"https://example.com/q\">x</a>", []string{"https://example.com/q"}},
		{"日本語のリンク https://example.jp/記事 です", []string{"https://example.jp/記事"}},
	}
	for _, c := range cases {
		if got := Links(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Links(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestMentionLinks(t *testing.T) {
	got := MentionLinks("https://news.ycombinator.com/item?id=42", "Acme is down https://example.com/status?utm_source=x and https://example.com/status/ again, see https://x.com/acme")
	want := []string{"news.ycombinator.com/item?id=42", "example.com/status"}
	if !slices.Equal(got, want) {
		t.Errorf("MentionLinks = %q, want %q", got, want)
	}
}

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"RT @acme: Acme's NEW release!!! https://t.co/abc": "acme s new release",
		"  Ünïcode   ÉTÉ — ok ":                            "ünïcode été ok",
		"東京で、Acmeが落ちた。":                                    "東京で acmeが落ちた",
		"#Acme is #1 🔥🔥":                                   "acme is 1",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// Near-duplicates in several scripts must agree; unrelated texts must not.
func TestFingerprintNearDuplicates(t *testing.T) {
	cases := []struct {
		name    string
		a, b    string
		similar bool
	}{
		{"retweet of an English post",
			"Acme just announced their new pricing: the free plan is gone and teams pay per seat from next month. Ouch.",
			"RT @someone: Acme just announced their new pricing: the free plan is gone and teams pay per seat from next month. Ouch! https://t.co/x1",
			true},
		{"headline syndicated with a site suffix",
			"Acme raises $40M Series B to take on Asana and Monday.com in the project management market",
			"Acme raises $40M Series B to take on Asana and Monday.com in the project management market - TechNews Daily",
			true},
		{"German cross-post",
			"Acme hat heute eine neue Version veröffentlicht, die Synchronisierung ist endlich schneller und stabiler geworden.",
			"Acme hat heute eine neue Version veröffentlicht – die Synchronisierung ist endlich schneller und stabiler geworden!!",
			true},
		{"Russian repost",
			"Сервис Acme снова не работает уже третий час, поддержка молчит, все наши задачи застряли.",
			"Сервис Acme снова не работает уже третий час, поддержка молчит, все наши задачи застряли… #acme",
			true},
		{"Japanese without spaces",
			"Acmeのサービスが今朝から全く繋がらない。サポートに問い合わせても返事がなく、仕事が止まっている。",
			"RT @user: Acmeのサービスが今朝から全く繋がらない。サポートに問い合わせても返事がなく、仕事が止まっている！",
			true},
		{"Chinese without spaces",
			"Acme今天发布了新版本，同步速度终于变快了，我们团队的工作效率提高了很多，强烈推荐大家试试。",
			"Acme今天发布了新版本，同步速度终于变快了，我们团队的工作效率提高了很多，强烈推荐大家试一试！",
			true},
		{"different English posts on the same topic",
			"Acme just announced their new pricing: the free plan is gone and teams pay per seat from next month. Ouch.",
			"Honestly the Acme pricing change is fine for us, we were paying for the business tier anyway and it got cheaper.",
			false},
		{"different Japanese posts",
			"Acmeのサービスが今朝から全く繋がらない。サポートに問い合わせても返事がなく、仕事が止まっている。",
			"Acmeの新しいカレンダー機能、とても使いやすい。チーム全員の予定が一目でわかるようになって助かる。",
			false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sa, oka := Fingerprint(c.a)
			sb, okb := Fingerprint(c.b)
			if !oka || !okb {
				t.Fatalf("no fingerprint: %v %v", oka, okb)
			}
			if got := Similar(&sa, &sb); got != c.similar {
				t.Errorf("Similar = %v (agree %d/%d), want %v", got, Agree(&sa, &sb), Hashes, c.similar)
			}
			if c.similar {
				shared := false
				for i := range Bands {
					if sa.Band(1, i) == sb.Band(1, i) {
						shared = true
					}
				}
				if !shared {
					t.Errorf("near-duplicates share no LSH band")
				}
			}
		})
	}
}

func TestFingerprintShortAndDeterministic(t *testing.T) {
	for _, s := range []string{"", "Acme is down again", "Acme 🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥", "Acmeが落ちた", "https://example.com/a-very-long-link-that-is-not-text-at-all-really"} {
		if _, ok := Fingerprint(s); ok {
			t.Errorf("Fingerprint(%q) should refuse a short text", s)
		}
	}
	text := "Acme just announced their new pricing: the free plan is gone and teams pay per seat from next month."
	a, _ := Fingerprint(text)
	b, _ := Fingerprint(strings.Clone(text))
	if a != b {
		t.Fatal("same text, different signatures")
	}
	// Pinned values: a change of seeds or shingling would silently regroup
	// every stored story after an upgrade.
	if got := fmt.Sprintf("%04x %04x", a[0], a[31]); got != pinnedSig {
		t.Errorf("signature of the pinned text = %s, want %s", got, pinnedSig)
	}
	if a.Band(1, 0) == a.Band(2, 0) {
		t.Error("band keys must depend on the scope")
	}
}

const pinnedSig = "b48e cf2b"
