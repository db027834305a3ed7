package collect

import (
	"slices"
	"strings"
)

// Bluesky shortens a link in a post's text to its display form
// ("acme.com/blog/launc..."); the full URL is in the record's link facet,
// and a link card's URL is in its external embed. Both become the post's
// links, and the text shows the full form (stories, URL keywords).

// bskyRichText is the part of an app.bsky.feed.post record that carries
// links.
type bskyRichText struct {
	Facets []struct {
		Index struct {
			ByteStart int `json:"byteStart"`
			ByteEnd   int `json:"byteEnd"`
		} `json:"index"`
		Features []struct {
			Type string `json:"$type"`
			URI  string `json:"uri"`
		} `json:"features"`
	} `json:"facets"`
	Embed *bskyEmbed `json:"embed"`
}

// bskyEmbed is an external link card, alone or beside media
// (app.bsky.embed.recordWithMedia).
type bskyEmbed struct {
	External *struct {
		URI string `json:"uri"`
	} `json:"external"`
	Media *bskyEmbed `json:"media"`
}

const bskyLinkFacet = "app.bsky.richtext.facet#link"

// expand returns text with every link facet's range replaced by its full
// URI, and the post's links (facets, then the card). Facet ranges are
// UTF-8 byte offsets; one out of range or cutting a rune is left as is.
func (rt bskyRichText) expand(text string) (string, []string) {
	type span struct {
		start, end int
		uri        string
	}
	var spans []span
	var links []string
	for _, f := range rt.Facets {
		for _, feat := range f.Features {
			if feat.Type != bskyLinkFacet || feat.URI == "" {
				continue
			}
			links = appendNew(links, feat.URI)
			s, e := f.Index.ByteStart, f.Index.ByteEnd
			if s >= 0 && s < e && e <= len(text) && isRuneStart(text, s) && isRuneStart(text, e) {
				spans = append(spans, span{s, e, feat.URI})
			}
		}
	}
	// Right to left, so earlier offsets stay valid; overlapping spans
	// (never sent by a sane client) keep the rightmost.
	slices.SortFunc(spans, func(a, b span) int { return b.start - a.start })
	last := len(text) + 1
	for _, sp := range spans {
		if sp.end > last {
			continue
		}
		text = text[:sp.start] + sp.uri + text[sp.end:]
		last = sp.start
	}
	for e := rt.Embed; e != nil; e = e.Media {
		if e.External != nil && e.External.URI != "" {
			links = appendNew(links, e.External.URI)
		}
	}
	return text, links
}

func isRuneStart(s string, i int) bool {
	return i == len(s) || i < len(s) && (s[i]&0xC0) != 0x80
}

func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, strings.TrimSpace(x))
}
