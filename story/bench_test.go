package story

import (
	"fmt"
	"testing"
)

var benchTexts = []string{
	"Our team moved to Acme last month and honestly the board view is great but sync with the calendar is slow again today https://example.com/review?utm_source=x",
	"Acmeのサービスが今朝から全く繋がらない。サポートに問い合わせても返事がなく、仕事が止まっている。",
	"Tried Acme: export crash again, support ticket open since yesterday, pricing for the team plan is fine though",
}

func BenchmarkFingerprint(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Fingerprint(benchTexts[i%len(benchTexts)])
	}
}

func BenchmarkMentionLinks(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		MentionLinks(fmt.Sprintf("https://x.com/i/status/%d", i), benchTexts[i%len(benchTexts)])
	}
}
