package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Story is a group of mentions that share a link or carry near-duplicate
// text (story_index.go assigns them at ingest).
type Story struct {
	ID              string
	ProjectID       string
	Title           string
	Link            *string
	MentionCount    int
	Sources         map[string]int
	Statuses        map[string]int
	FirstMentionID  string
	LatestMentionID string
	FirstSeen       string
	LastSeen        string
	CreatedAt       string
	UpdatedAt       string
}

// scanStoryAgg fills a scanned mention's story count and sources from
// mentionCols' "count sources-json" column (NULL: the mention is alone).
func scanStoryAgg(m *Mention, agg sql.NullString) error {
	if !agg.Valid {
		m.StoryCount, m.StorySources = 1, map[string]int{m.Source: 1}
		if m.StoryID != nil { // its story is gone (cannot happen: kept with the project)
			m.StoryID = nil
		}
		return nil
	}
	n, src, _ := strings.Cut(agg.String, " ")
	c, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("mention %s story count: %w", m.ID, err)
	}
	m.StoryCount = c
	m.StorySources = map[string]int{}
	if err := json.Unmarshal([]byte(src), &m.StorySources); err != nil {
		return fmt.Errorf("mention %s story sources: %w", m.ID, err)
	}
	return nil
}

// listCollapsed is ListMentions showing each story once: a mention of a
// story is listed only when it is the first of its story's mentions that
// match the filter, in the filter's order (the newest one, or the most
// urgent with ByUrgency); mentions without a story are listed as they are.
// The page's keyset position stays the last listed mention's, so cursors
// work unchanged: skipped mentions are skipped again.
func (s *Store) listCollapsed(ctx context.Context, f MentionFilter, after *Position, limit int) ([]*Mention, error) {
	f.CollapseStories = false
	out := []*Mention{}
	firstOf := map[string]string{} // story id → id of its first matching mention
	for len(out) < limit {
		page, err := s.ListMentions(ctx, f, after, limit)
		if err != nil {
			return nil, err
		}
		for _, m := range page {
			if m.StoryID != nil {
				first, ok := firstOf[*m.StoryID]
				if !ok {
					sf := f
					sf.StoryID = *m.StoryID
					top, err := s.ListMentions(ctx, sf, nil, 1)
					if err != nil {
						return nil, err
					}
					if len(top) > 0 {
						first = top[0].ID
					}
					firstOf[*m.StoryID] = first
				}
				if first != m.ID {
					continue
				}
			}
			out = append(out, m)
			if len(out) == limit {
				break
			}
		}
		if len(page) < limit {
			break
		}
		pos := PositionOf(page[len(page)-1], f)
		after = &pos
	}
	return out, nil
}

// StoryFilter selects stories (list_stories).
type StoryFilter struct {
	ProjectID   string
	MinMentions int        // at least this many mentions (2 when 0)
	Since       *time.Time // last_seen at or after
	Source      string     // at least one mention from this source
	Status      string     // at least one mention in this triage status
}

// StoryPosition is a keyset position in list_stories' order.
type StoryPosition struct {
	At string `json:"t"`
	ID string `json:"i"`
}

const storyCols = `s.id, s.project_id, s.title, s.link, s.mention_count, s.sources, s.first_mention_id, s.latest_mention_id,
	s.first_seen, s.last_seen, s.created_at, s.updated_at`

func scanStory(row interface{ Scan(...any) error }) (*Story, error) {
	var st Story
	var link, sources string
	err := row.Scan(&st.ID, &st.ProjectID, &st.Title, &link, &st.MentionCount, &sources, &st.FirstMentionID, &st.LatestMentionID,
		&st.FirstSeen, &st.LastSeen, &st.CreatedAt, &st.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if link != "" {
		st.Link = &link
	}
	st.Sources = map[string]int{}
	if err := json.Unmarshal([]byte(sources), &st.Sources); err != nil {
		return nil, fmt.Errorf("story %s sources: %w", st.ID, err)
	}
	st.Statuses = map[string]int{}
	return &st, nil
}

// ListStories returns up to limit stories after pos, the most recently
// active first (last_seen, then id, descending).
func (s *Store) ListStories(ctx context.Context, f StoryFilter, after *StoryPosition, limit int) ([]*Story, error) {
	where := []string{`s.project_id = ?`, `s.mention_count >= ?`}
	args := []any{f.ProjectID, max(f.MinMentions, 2)}
	if f.Since != nil {
		where, args = append(where, `s.last_seen >= ?`), append(args, FormatTime(*f.Since))
	}
	if f.Source != "" {
		where, args = append(where, jsonCount(s.pg, `s.sources`)+` > 0`), append(args, f.Source)
	}
	if f.Status != "" {
		where = append(where, `EXISTS (SELECT 1 FROM `+s.indexed("mentions", "m", "mentions_story")+` WHERE m.story_id = s.id AND m.status = ?)`)
		args = append(args, f.Status)
	}
	if after != nil {
		where, args = append(where, `(s.last_seen, s.id) < (?, ?)`), append(args, after.At, after.ID)
	}
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+storyCols+` FROM `+s.indexed("stories", "s", "stories_recent")+` WHERE `+strings.Join(where, " AND ")+
		` ORDER BY s.last_seen DESC, s.id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	out := []*Story{}
	for rows.Next() {
		st, err := scanStory(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, st)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.fillStatuses(ctx, out)
}

// fillStatuses counts each story's mentions per triage status.
func (s *Store) fillStatuses(ctx context.Context, stories []*Story) error {
	if len(stories) == 0 {
		return nil
	}
	byID := map[string]*Story{}
	ids := make([]string, len(stories))
	for i, st := range stories {
		byID[st.ID], ids[i] = st, st.ID
	}
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT m.story_id, m.status, COUNT(*) FROM `+s.indexed("mentions", "m", "mentions_story")+`
		WHERE m.story_id IN (`+s.jsonValues()+`) GROUP BY m.story_id, m.status`, toJSON(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, status string
		var n int
		if err := rows.Scan(&id, &status, &n); err != nil {
			return err
		}
		byID[id].Statuses[status] = n
	}
	return rows.Err()
}

// PositionOfStory is the keyset position of a story in ListStories.
func PositionOfStory(st *Story) StoryPosition { return StoryPosition{At: st.LastSeen, ID: st.ID} }

// Story returns one story of the project.
func (s *Store) Story(ctx context.Context, projectID, id string) (*Story, error) {
	st, err := scanStory(s.rd(ctx).QueryRowContext(ctx, `SELECT `+storyCols+` FROM stories s WHERE s.id = ? AND s.project_id = ?`, id, projectID))
	if err != nil {
		return nil, err
	}
	return st, s.fillStatuses(ctx, []*Story{st})
}

// UpdateStoryStatus sets the triage status of every mention of a story in
// one transaction, as UpdateMention would one by one: each mention whose
// status really changes gets updated_at and a mention.updated event; the
// others are left untouched. It returns the story and how many mentions
// changed.
func (s *Store) UpdateStoryStatus(ctx context.Context, projectID, id, status string) (*Story, int, error) {
	changed := 0
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM stories WHERE id = ? AND project_id = ?`, id, projectID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+mentionCols+` FROM `+s.indexed("mentions", "m", "mentions_story")+`
			WHERE m.story_id = ? AND m.project_id = ? AND m.status <> ? ORDER BY m.published_at DESC, m.id DESC`, id, projectID, status)
		if err != nil {
			return err
		}
		var ms []*Mention
		for rows.Next() {
			m, err := scanMention(rows)
			if err != nil {
				rows.Close()
				return err
			}
			ms = append(ms, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		ts := now()
		for _, m := range ms {
			prev := m.Status
			m.Status, m.UpdatedAt = status, ts
			if _, err := tx.ExecContext(ctx, `UPDATE mentions SET status = ?, updated_at = ? WHERE id = ?`, status, ts, m.ID); err != nil {
				return err
			}
			ev, err := NewEvent(projectID, "mention.updated", map[string]any{"mention": m.Record(), "previous_status": prev})
			if err != nil {
				return err
			}
			if err := insertEvent(ctx, tx, ev); err != nil {
				return err
			}
		}
		changed = len(ms)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	st, err := s.Story(ctx, projectID, id)
	return st, changed, err
}
