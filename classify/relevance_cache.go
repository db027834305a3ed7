package classify

import (
	"strings"
	"sync"
)

// brandInfo is what relevance reads from a brand's configuration (the
// monitor's keywords and the project), computed once per configuration
// instead of once per post.
type brandInfo struct {
	terms     []termInfo      // brandTermInfo
	desc      map[string]bool // descriptionWords
	own       []string        // ownHosts
	otherAmb  map[string]bool // Project.Terms that are ambiguous
	ownTermsL []string        // Project.Terms, lower case
}

// brandCacheMax bounds the cache: a long-running server sees one entry per
// monitor configuration; a caller varying keywords on every post (the
// classify CLI) only recomputes.
const brandCacheMax = 4096

var brandCache = struct {
	sync.RWMutex
	m map[string]*brandInfo
}{m: map[string]*brandInfo{}}

func brandOf(in Input) *brandInfo {
	var b strings.Builder
	b.WriteString(in.Project.Name)
	b.WriteByte(0)
	b.WriteString(in.Project.Website)
	b.WriteByte(0)
	b.WriteString(in.Project.Description)
	for _, k := range in.Keywords {
		b.WriteByte(1)
		b.WriteString(k)
	}
	for _, k := range in.Project.Terms {
		b.WriteByte(2)
		b.WriteString(k)
	}
	key := b.String()
	brandCache.RLock()
	bi := brandCache.m[key]
	brandCache.RUnlock()
	if bi != nil {
		return bi
	}
	bi = &brandInfo{terms: brandTermInfo(in), desc: descriptionWords(in), own: ownHosts(in), otherAmb: map[string]bool{}}
	for _, k := range in.Project.Terms {
		bi.ownTermsL = append(bi.ownTermsL, strings.ToLower(strings.TrimSpace(k)))
		if ambiguity(k, in) != "" {
			bi.otherAmb[k] = true
		}
	}
	brandCache.Lock()
	if len(brandCache.m) >= brandCacheMax {
		brandCache.m = map[string]*brandInfo{}
	}
	brandCache.m[key] = bi
	brandCache.Unlock()
	return bi
}
