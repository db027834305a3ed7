package store

import (
	"context"
	"database/sql"
	"time"

	"earshot/vocab"
)

// The public page is the brand's wall, curated (docs/decisions.md#public-page).
// Each mention has a public_visibility: auto (the wall's rule decides),
// featured (always shown, first) or hidden (never shown).
const (
	VisibilityAuto     = vocab.VisibilityAuto
	VisibilityFeatured = vocab.VisibilityFeatured
	VisibilityHidden   = vocab.VisibilityHidden
)

// wallAuto is the rule for auto mentions: not negative and not
// misinformation. It is a query, so a mention reclassified negative leaves
// the wall at once unless an editor featured it. sentiment and category
// are in the date index (migration 072), so a walk tests them without
// reading the row.
const wallAuto = `m.public_visibility = 'auto' AND m.sentiment <> 'negative' AND m.category <> 'misinformation'`

// wallWindow is how far back the wall's automatic part reaches; featured
// mentions stay until an editor takes them off.
const wallWindow = 90 * 24 * time.Hour

// MentionChange is what update_mention_status changes; an empty field is
// left as it is.
type MentionChange struct {
	Status           string
	PublicVisibility string
	// IsRelevant, when set, is a person's judgment of relevance: it moves
	// a mention in or out of the Filtered view (is_relevant false) and
	// teaches the relevance model (relevance_judged, TriageExamples).
	IsRelevant *bool
}

// UpdateMention applies a triage change in one transaction. Only a status that
// really changes records mention.updated (docs/decisions.md#webhooks: the event
// means the status changed), carrying the whole new record; public_visibility
// is an editorial choice about the public page, not a triage step, so it fires
// no event of its own. Any real change bumps updated_at; a change to the values
// the mention already has changes nothing.
func (s *Store) UpdateMention(ctx context.Context, projectID, id string, ch MentionChange) (*Mention, error) {
	var out *Mention
	err := s.tx(ctx, func(tx *sql.Tx) error {
		m, err := scanMention(tx.QueryRowContext(ctx, `SELECT `+mentionCols+` FROM mentions m WHERE m.id = ? AND m.project_id = ?`, id, projectID))
		if err != nil {
			return err
		}
		out = m
		prev := m.Status
		statusChanged := ch.Status != "" && ch.Status != m.Status
		visChanged := ch.PublicVisibility != "" && ch.PublicVisibility != m.PublicVisibility
		relChanged := ch.IsRelevant != nil && *ch.IsRelevant != m.IsRelevant
		if !statusChanged && !visChanged && !relChanged {
			return nil
		}
		if relChanged {
			m.IsRelevant = *ch.IsRelevant
			if _, err := tx.ExecContext(ctx, `UPDATE mentions SET is_relevant = ?, relevance_judged = 1 WHERE id = ?`, boolInt(m.IsRelevant), id); err != nil {
				return err
			}
		}
		if statusChanged {
			m.Status = ch.Status
		}
		if visChanged {
			m.PublicVisibility = ch.PublicVisibility
		}
		m.UpdatedAt = now()
		if _, err := tx.ExecContext(ctx, `UPDATE mentions SET status = ?, public_visibility = ?, updated_at = ? WHERE id = ?`,
			m.Status, m.PublicVisibility, m.UpdatedAt, id); err != nil {
			return err
		}
		if !statusChanged {
			return nil
		}
		ev, err := NewEvent(projectID, "mention.updated", map[string]any{"mention": m.Record(), "previous_status": prev})
		if err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// PublicMentions is the public page's wall, up to limit mentions, in the
// order the page shows them: featured ones first (newest first; shown
// whatever their sentiment, category, status or age), then the automatic
// part of the last 90 days — relevant, not ignored, neither negative nor
// misinformation, not hidden, and the brand's own (not collected by
// competitor monitors alone, ownBrandLink) — testimonials first, each part
// newest first. The dashboard's preview of the wall calls the same
// function, so an editor sees exactly what visitors see. Three bounded
// reads instead of sorting the window: the page is public, and a window
// can hold a million mentions.
func (s *Store) PublicMentions(ctx context.Context, projectID string, limit int) ([]*Mention, error) {
	out, err := s.ListMentions(ctx, MentionFilter{ProjectID: projectID, PublicVisibility: VisibilityFeatured}, nil, limit)
	if err != nil || len(out) >= limit {
		return out, err
	}
	yes := true
	since := time.Now().Add(-wallWindow)
	f := MentionFilter{ProjectID: projectID, IsRelevant: &yes, Since: &since, NotStatus: "ignored", Category: "testimonial", OwnBrand: true, WallAuto: true}
	love, err := s.ListMentions(ctx, f, nil, limit-len(out))
	if err != nil {
		return nil, err
	}
	out = append(out, love...)
	if len(out) >= limit {
		return out, nil
	}
	f.Category, f.NotCategory = "", "testimonial"
	rest, err := s.ListMentions(ctx, f, nil, limit-len(out))
	return append(out, rest...), err
}
