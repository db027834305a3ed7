package ui

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"earshot/api"
	"earshot/vocab"
)

// A story is one link or one text told in many places (list_stories). The
// inbox can list each story once (collapse=story): the row shown says how
// many other mentions the story has and where, and links to all of them
// (?story_id=). Filtered by a story, and on a mention of one, the whole
// story can be triaged at once (update_story_status through /a/).

// sourceCount is one source of a story's other mentions.
type sourceCount struct {
	Source string
	N      int
}

// storyMore is a collapsed row's "and N more on X, Reddit" line: the
// story's mentions other than this row, per source, most first.
type storyMore struct {
	N       int
	Sources []sourceCount
	Href    string // the story's mentions in the inbox
}

// More is the "and N more" line of a collapsed row; nil when the mention
// is alone or the inbox is not grouping stories.
func (d rowsData) More(m *api.Mention) *storyMore {
	if !d.Collapse || m.StoryID == nil || m.StoryCount < 2 {
		return nil
	}
	out := &storyMore{Href: storyHref(*m.StoryID, d.Order)}
	for src, n := range m.StorySources {
		if src == m.Source {
			n-- // the row itself
		}
		if n > 0 {
			out.Sources = append(out.Sources, sourceCount{src, n})
			out.N += n
		}
	}
	if out.N == 0 {
		return nil
	}
	sort.Slice(out.Sources, func(i, j int) bool {
		a, b := out.Sources[i], out.Sources[j]
		return a.N > b.N || (a.N == b.N && a.Source < b.Source)
	})
	return out
}

// StoryHref is the inbox filtered by the mention's story.
func (d rowsData) StoryHref(m *api.Mention) string {
	if m.StoryID == nil {
		return ""
	}
	return storyHref(*m.StoryID, d.Order)
}

// storyHref is the inbox listing one story's mentions, in the given order
// ("urgency" or "" for newest).
func storyHref(id, order string) string {
	q := url.Values{"story_id": {id}}
	if order == "urgency" {
		q.Set("sort", order)
	}
	return "/?" + q.Encode()
}

// storySources words a story's mentions per source: "X 5 · Reddit 2".
func storySources(m map[string]int) string {
	cs := make([]sourceCount, 0, len(m))
	for s, n := range m {
		cs = append(cs, sourceCount{s, n})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].N > cs[j].N || (cs[i].N == cs[j].N && cs[i].Source < cs[j].Source) })
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = sourceName(c.Source) + " " + strconv.Itoa(c.N)
	}
	return strings.Join(parts, " · ")
}

// storyTriage is the data of the "whole story" triage control.
type storyTriage struct {
	ID, CSRF, Back string
	Count          int
	Statuses       map[string]int // the story's mentions per status; nil when unknown
}

// StoryTriage is the inbox's whole-story control when it lists one story.
func (d *inboxData) StoryTriage(csrf, back string) *storyTriage {
	if d.Story == nil {
		return nil
	}
	return &storyTriage{ID: d.Story.ID, CSRF: csrf, Back: back, Count: d.Story.MentionCount, Statuses: d.Story.Statuses}
}

// StoryTriage is the one-mention page's whole-story control; nil when the
// mention is alone.
func (d *mentionData) StoryTriage(csrf, back string) *storyTriage {
	if d.M.StoryID == nil || d.M.StoryCount < 2 {
		return nil
	}
	return &storyTriage{ID: *d.M.StoryID, CSRF: csrf, Back: back, Count: d.M.StoryCount}
}

// StatusWords words a story's mentions per status: "3 new, 2 done".
func (t *storyTriage) StatusWords() string {
	var parts []string
	for _, s := range vocab.Statuses {
		if n := t.Statuses[s]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+s)
		}
	}
	return strings.Join(parts, ", ")
}
