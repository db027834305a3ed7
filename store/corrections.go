package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// CorrectedReason is the category_reason of a mention a person corrected.
const CorrectedReason = "corrected by a person"

// CorrectMention records a person's category and/or sentiment for a
// mention ("" leaves a field as it is). The mention shows them from now
// on, and they are kept as human labels (mention_corrections) that the
// project's classifier learns from
// (CorrectionExamples); nothing classifies a stored mention again, and
// were it to, the human columns say which values are a person's. A
// correction to the values the mention already has from a person changes
// nothing.
func (s *Store) CorrectMention(ctx context.Context, projectID, id, category, sentiment string) (*Mention, error) {
	var out *Mention
	err := s.tx(ctx, func(tx *sql.Tx) error {
		m, err := scanMention(tx.QueryRowContext(ctx, `SELECT `+mentionCols+` FROM mentions m WHERE m.id = ? AND m.project_id = ?`, id, projectID))
		if err != nil {
			return err
		}
		out = m
		var hc, hs string
		err = tx.QueryRowContext(ctx, `SELECT category, sentiment FROM mention_corrections WHERE mention_id = ?`, id).Scan(&hc, &hs)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read correction: %w", err)
		}
		if (category == "" || hc == category) && (sentiment == "" || hs == sentiment) {
			return nil // nothing asked, or what a person already said
		}
		was := m.Category + "/" + m.Sentiment
		if category != "" {
			m.Category, hc = category, category
		}
		if sentiment != "" {
			m.Sentiment, hs = sentiment, sentiment
		}
		if !strings.HasPrefix(m.CategoryReason, CorrectedReason) {
			m.CategoryReason = fmt.Sprintf("%s (the classifier said %s)", CorrectedReason, was)
		}
		m.UpdatedAt = now()
		if _, err := tx.ExecContext(ctx, `UPDATE mentions SET category = ?, sentiment = ?, category_reason = ?, updated_at = ? WHERE id = ?`,
			m.Category, m.Sentiment, m.CategoryReason, m.UpdatedAt, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO mention_corrections(mention_id, project_id, category, sentiment, corrected_at) VALUES (?,?,?,?,?)
			ON CONFLICT (mention_id) DO UPDATE SET category = excluded.category, sentiment = excluded.sentiment, corrected_at = excluded.corrected_at`,
			id, projectID, hc, hs, m.UpdatedAt)
		return err
	})
	return out, err
}

// CorrectionExamples returns a project's most recently corrected mentions,
// newest first, at most limit: their text and the human category and
// sentiment ("" where a person corrected only the other). version changes
// whenever a correction is made, so a cached model knows to retrain.
func (s *Store) CorrectionExamples(ctx context.Context, projectID string, limit int) (texts, categories, sentiments []string, version string, err error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT m.text, c.category, c.sentiment, c.corrected_at FROM mention_corrections c
		JOIN mentions m ON m.id = c.mention_id WHERE c.project_id = ? ORDER BY c.corrected_at DESC LIMIT ?`, projectID, limit)
	if err != nil {
		return nil, nil, nil, "", err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var text, cat, sent, at string
		if err := rows.Scan(&text, &cat, &sent, &at); err != nil {
			return nil, nil, nil, "", err
		}
		if n == 0 {
			version = at
		}
		n++
		texts, categories, sentiments = append(texts, text), append(categories, cat), append(sentiments, sent)
	}
	return texts, categories, sentiments, fmt.Sprintf("%s/%d", version, n), rows.Err()
}
