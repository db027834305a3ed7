package story

import (
	"strings"
	"unicode"
)

// MinHash parameters. A text's signature is Hashes minimum hash values
// over its character shingles (one per bin, see Fingerprint); two
// signatures agree at a position with about the probability of the texts'
// Jaccard similarity. For lookup the
// signature is cut into Bands of Rows values: texts whose Jaccard is 0.7
// share at least one band with probability 0.89 (0.985 at 0.8, 0.13 at
// 0.3), and a candidate is kept when at least MinAgree of the Hashes
// values agree (an estimated Jaccard of about 0.6).
const (
	Hashes   = 32
	Bands    = 8
	Rows     = Hashes / Bands
	MinAgree = 19
	// MinShingles: shorter texts get no fingerprint. Two people writing
	// "Acme is down again" are not one story; a repost of a paragraph is.
	MinShingles = 30
	// Shingle lengths in characters: 5 for alphabetic scripts, 3 where
	// one character is about a syllable or a word (Han, kana, Hangul), so
	// no word segmentation is needed in any language.
	shingleWide  = 5
	shingleDense = 3
)

// Sig is a text's MinHash signature: the low 16 bits of each bin's 32-bit
// minimum (the minimum decides which shingle wins; its low bits are still
// uniform, and two different winners agree by chance once in 65,536), half
// the memory of the index of recent mentions.
type Sig [Hashes]uint16

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Normalize returns the text as fingerprinting sees it: links, @handles
// and a leading "RT" dropped, letters case-folded, every run of other
// characters (punctuation, emoji, spaces) one space. Exported for tests
// and for explaining a grouping.
func Normalize(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	first := true
	for _, tok := range strings.Fields(text) {
		switch {
		case hasPrefixFold(tok, "http://"), hasPrefixFold(tok, "https://"), hasPrefixFold(tok, "www."):
			continue
		case strings.HasPrefix(tok, "@") || strings.HasPrefix(tok, "＠"):
			continue
		case first && (tok == "RT" || tok == "RT:"):
			continue
		}
		first = false
		space := b.Len() > 0
		for _, r := range tok {
			keep := false
			if r < 0x80 { // ASCII, most of what is collected: no table lookups
				if 'A' <= r && r <= 'Z' {
					r += 'a' - 'A'
				}
				keep = 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
			} else {
				keep = unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
			}
			if keep {
				if space {
					b.WriteByte(' ')
					space = false
				}
				b.WriteRune(unicode.ToLower(r))
			} else if b.Len() > 0 {
				space = true
			}
		}
	}
	return b.String()
}

// dense reports whether most letters of r are of a script written without
// spaces between words and with a syllable or more per character.
func dense(r []rune) bool {
	letters, d := 0, 0
	for _, c := range r {
		if c == ' ' {
			continue
		}
		letters++
		if c >= 0x1100 && unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			d++
		}
	}
	return letters > 0 && 2*d >= letters
}

// Fingerprint returns the MinHash signature of a text's character
// shingles, and false when the text is too short to fingerprint. It is
// one-permutation MinHash: each shingle is hashed once, the hash's top
// five bits pick one of the Hashes bins and the bin keeps its smallest
// value (32 hash functions per shingle cost six times as much, paid for
// every post collected); a bin no shingle fell in borrows, deterministically
// mixed, the value of the next filled bin (rotation densification), so two
// texts still agree in a bin with about their Jaccard similarity.
func Fingerprint(text string) (Sig, bool) {
	var sig Sig
	r := []rune(Normalize(text))
	k := shingleWide
	if dense(r) {
		k = shingleDense
	}
	n := len(r) - k + 1
	if n < MinShingles {
		return sig, false
	}
	var mins [Hashes]uint32
	var filled uint32 // bit i: bin i holds a value
	for i := range n {
		h := uint64(14695981039346656037) // FNV-1a over the shingle's runes
		for _, c := range r[i : i+k] {
			h ^= uint64(c)
			h *= 1099511628211
		}
		h = splitmix(h)
		bin, v := h>>59, uint32(h)
		if filled&(1<<bin) == 0 || v < mins[bin] {
			mins[bin] = v
			filled |= 1 << bin
		}
	}
	for j := range Hashes {
		v := mins[j]
		if filled&(1<<j) == 0 {
			d := 1
			for filled&(1<<((j+d)%Hashes)) == 0 {
				d++
			}
			v = uint32(splitmix(uint64(mins[(j+d)%Hashes]) ^ uint64(d)<<40))
		}
		sig[j] = uint16(v)
	}
	return sig, true
}

// Agree counts the positions where two signatures hold the same value:
// Agree/Hashes estimates the texts' Jaccard similarity.
func Agree(a, b *Sig) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// Similar reports whether two signatures are near-duplicates.
func Similar(a, b *Sig) bool { return Agree(a, b) >= MinAgree }

// Band returns the lookup key of band i (0 ≤ i < Bands) of a signature,
// for texts of the scope (a project) given as its hash.
func (s *Sig) Band(scope uint64, i int) uint64 {
	h := splitmix(scope ^ uint64(i+1)*0x9e3779b97f4a7c15)
	for _, v := range s[i*Rows : (i+1)*Rows] {
		h = splitmix(h ^ uint64(v))
	}
	return h
}

// Hash is a stable 64-bit hash of s (FNV-1a, mixed), for scopes and links.
func Hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return splitmix(h)
}

// LinkKey is the lookup key of a canonical link within a scope.
func LinkKey(scope uint64, canonical string) uint64 {
	return splitmix(scope ^ Hash(canonical) ^ 0x4c494e4b)
}
