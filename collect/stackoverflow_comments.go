package collect

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// Comments on the questions and answers a scan found are read through the
// documented GET /2.3/posts/{ids}/comments (ids joined by ';', up to 100
// a call), newest first from Since, with the body (filter=withbody); each
// comment is a post of its own and the pipeline's matcher keeps those that
// mention the keywords.

// seCommentBatches bounds the comment calls of a site per scan (each for
// up to 100 posts, paged like the searches): 300 posts, the newest.
const seCommentBatches = 3

// seCommentIDs is how many post ids the API takes in one call.
const seCommentIDs = 100

// The notes of a question or answer whose comments were not read.
const (
	NoteStackExchangeCommentsCapped  = "comments not read (more posts than the scan's comment calls cover)"
	NoteStackExchangeCommentsRefused = "comments not read (the comments call was refused)"
)

type seComment struct {
	CommentID    int64  `json:"comment_id"`
	PostID       int64  `json:"post_id"`
	Body         string `json:"body"` // HTML (filter=withbody)
	Link         string `json:"link"` // not in the withbody filter; used when a filter gives it
	CreationDate int64  `json:"creation_date"`
	Score        int64  `json:"score"`
	Owner        *struct {
		DisplayName string `json:"display_name"`
	} `json:"owner"`
}

// fetchComments reads the comments of the site's posts found (id → index
// in b.Posts), the newest posts first, one call per 100 of them.
func (s *StackOverflow) fetchComments(ctx context.Context, site string, since time.Time, found map[int64]int, seen map[string]bool, b *Batch) error {
	ids := make([]int64, 0, len(found))
	parents := make(map[int64]string, len(found))
	for id, i := range found {
		ids = append(ids, id)
		parents[id] = b.Posts[i].URL
	}
	slices.SortFunc(ids, func(x, y int64) int { return cmp.Compare(y, x) }) // ids grow with time: newest first
	for n := 0; len(ids) > 0; n++ {
		batch := ids[:min(seCommentIDs, len(ids))]
		if n == seCommentBatches {
			noteSEPosts(b, found, ids, NoteStackExchangeCommentsCapped)
			return nil
		}
		parts := make([]string, len(batch))
		for i, id := range batch {
			parts[i] = strconv.FormatInt(id, 10)
		}
		var c Batch // the call is all or nothing: a failed page keeps none of its comments
		if err := seRead[seComment](ctx, s, "/posts/"+strings.Join(parts, ";")+"/comments", url.Values{}, site, since, seen, nil, parents, &c); err != nil {
			noteSEPosts(b, found, ids, NoteStackExchangeCommentsRefused)
			return err
		}
		b.Posts = append(b.Posts, c.Posts...)
		for reason, k := range c.Skipped {
			b.Skipped.Add(reason, k)
		}
		ids = ids[len(batch):]
	}
	return nil
}

// noteSEPosts marks the posts whose comments were not read.
func noteSEPosts(b *Batch, found map[int64]int, ids []int64, note string) {
	for _, id := range ids {
		if p := &b.Posts[found[id]]; p.Note == "" {
			p.Note = note
		}
	}
}

func (it seComment) postID() int64 { return it.PostID }

// post is the comment at its link, else at its parent's link with the
// anchor the sites use (#comment{id}_{post id}).
func (it seComment) post(site string, parents map[int64]string) (Post, string, bool) {
	link := it.Link
	if link == "" && parents[it.PostID] != "" {
		id := strconv.FormatInt(it.CommentID, 10)
		link = parents[it.PostID] + "#comment" + id + "_" + strconv.FormatInt(it.PostID, 10)
	}
	if it.CommentID == 0 || it.CreationDate <= 0 || link == "" {
		return Post{}, "comment without id, date or post", false
	}
	post := Post{
		Source:      "stackoverflow",
		ExternalID:  site + ":c" + strconv.FormatInt(it.CommentID, 10),
		URL:         link,
		Text:        wire.PlainText(it.Body),
		PublishedAt: time.Unix(it.CreationDate, 0).UTC(),
		Engagement:  map[string]int64{"score": it.Score},
		Kind:        "comment",
	}
	if it.Owner != nil {
		post.AuthorHandle = wire.NormalizeHandle(wire.UnescapeText(it.Owner.DisplayName))
	}
	return post, "", false
}
