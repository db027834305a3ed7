package collect

import "earshot/match"

// The keyword rule lives in package match, shared with the catalogue's
// monitor preview; these wrappers let collectors match their Posts.

// Rule is what a monitor asks of a post (match.Rule).
type Rule = match.Rule

// RuleFromQuery is the Rule a scan's Query carries.
func RuleFromQuery(q Query) Rule {
	return Rule{Keywords: q.Keywords, ExcludeKeywords: q.ExcludeKeywords, QueryMode: q.QueryMode, WatchAccounts: q.WatchAccounts}
}

// Matcher is a compiled Rule that matches Posts.
type Matcher struct{ m *match.Matcher }

// Compile prepares r for repeated matching.
func Compile(r Rule) *Matcher { return &Matcher{match.Compile(r)} }

// Match reports whether p is a mention under the compiled rule.
func (m *Matcher) Match(p Post) bool { return m.m.Match(p.matchItem()) }

func (p Post) matchItem() match.Item {
	return match.Item{Text: p.Text, AuthorHandle: p.AuthorHandle, AuthorID: p.AuthorID, Links: p.Links}
}

func normHandle(h string) string { return match.NormHandle(h) }
