package collect

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"earshot/classify"
	"earshot/collect/wire"
)

// loadBrand reads what the classifier needs to know about the brand beyond
// the project record: every monitor's keywords (an ambiguous keyword needs
// evidence, and the brand's other names, products and competitors named
// beside it are some), and the project's own accounts and domains (own
// posts are not mentions to triage).
//
// Own accounts are the watch_accounts of the project's own-brand monitors,
// judged as the public page and share of voice judge them (store's
// ownBrandLink): group_name my_brand, or filed under a keyword group with
// is_own, or neither competitors nor under a group. A competitor monitor's
// watched accounts are the competitor's: their posts are mentions to read.
// @handles in the project's description are its own accounts too. Own
// domains are the project's website and the own-brand monitors'
// keywords that are bare domains ("acme.example").
func (p *Pipeline) loadBrand(ctx context.Context, projectID string, pc *projectContext) error {
	mons, err := p.st.ListMonitors(ctx, projectID)
	if err != nil {
		return fmt.Errorf("loading monitors: %w", err)
	}
	groups, err := p.st.ListKeywordGroups(ctx, projectID)
	if err != nil {
		return fmt.Errorf("loading keyword groups: %w", err)
	}
	ownGroup := map[string]bool{}
	for _, g := range groups {
		ownGroup[g.ID] = g.IsOwn
	}
	var handles, domains, terms []string
	if pc.project.Website != "" {
		domains = append(domains, pc.project.Website)
	}
	for _, m := range mons {
		own := m.GroupName == "my_brand" || (m.GroupID != nil && ownGroup[*m.GroupID]) || (m.GroupName != "competitors" && m.GroupID == nil)
		for _, k := range m.Keywords {
			if !slices.ContainsFunc(terms, func(t string) bool { return strings.EqualFold(t, k) }) {
				terms = append(terms, k)
			}
			if own && classify.IsDomain(k) {
				domains = append(domains, k)
			}
		}
		if own {
			handles = append(handles, m.WatchAccounts...)
		}
	}
	// The project may name its accounts in its description ("on X @acmehq").
	handles = append(handles, descriptionHandles(pc.project.Description)...)
	for _, h := range handles {
		if h = wire.NormalizeHandle(h); h != "" && !strings.ContainsAny(h, ": /") {
			terms = append(terms, "@"+h)
		}
	}
	pc.project.Terms = terms
	pc.owner = classify.NewOwner(handles, domains)
	return nil
}

// descriptionHandles returns the @handles a description names: "@" at the
// start of a word (not inside an e-mail address), then letters, digits, "_"
// or "."; a trailing dot ends the sentence, not the handle.
func descriptionHandles(desc string) []string {
	var out []string
	for i := 0; i < len(desc); i++ {
		if desc[i] != '@' || (i > 0 && !isHandleBoundary(desc[i-1])) {
			continue
		}
		j := i + 1
		for j < len(desc) && (desc[j] == '_' || desc[j] == '.' || desc[j] >= 'a' && desc[j] <= 'z' || desc[j] >= 'A' && desc[j] <= 'Z' || desc[j] >= '0' && desc[j] <= '9') {
			j++
		}
		if h := strings.TrimRight(desc[i+1:j], "."); len(h) >= 2 {
			out = append(out, h)
		}
		i = j
	}
	return out
}

func isHandleBoundary(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '(' || b == ',' || b == ':' || b == ';' || b == '"' || b == '\''
}
