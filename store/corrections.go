package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// CorrectedReason is the category_reason of a mention a person corrected.
const CorrectedReason = "corrected by a person"

// CorrectMention records a person's category and/or sentiment for a
// mention ("" leaves a field as it is). The mention shows them from now
// on, and they are kept as human labels (human_category,
// human_sentiment) that the project's classifier learns from
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
		var hc, hs sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT human_category, human_sentiment FROM mentions WHERE id = ?`, id).Scan(&hc, &hs); err != nil {
			return fmt.Errorf("read correction: %w", err)
		}
		if (category == "" || hc.Valid && hc.String == category) && (sentiment == "" || hs.Valid && hs.String == sentiment) {
			return nil // nothing asked, or what a person already said
		}
		was := m.Category + "/" + m.Sentiment
		if category != "" {
			m.Category, hc = category, sql.NullString{String: category, Valid: true}
		}
		if sentiment != "" {
			m.Sentiment, hs = sentiment, sql.NullString{String: sentiment, Valid: true}
		}
		if !strings.HasPrefix(m.CategoryReason, CorrectedReason) {
			m.CategoryReason = fmt.Sprintf("%s (the classifier said %s)", CorrectedReason, was)
		}
		m.UpdatedAt = now()
		_, err = tx.ExecContext(ctx, `UPDATE mentions SET category = ?, sentiment = ?, human_category = ?, human_sentiment = ?, corrected_at = ?,
			category_reason = ?, updated_at = ? WHERE id = ?`, m.Category, m.Sentiment, hc, hs, m.UpdatedAt, m.CategoryReason, m.UpdatedAt, id)
		return err
	})
	return out, err
}

// CorrectionExamples returns a project's most recently corrected mentions,
// newest first, at most limit: their text and the human category and
// sentiment ("" where a person corrected only the other). version changes
// whenever a correction is made, so a cached model knows to retrain.
func (s *Store) CorrectionExamples(ctx context.Context, projectID string, limit int) (texts, categories, sentiments []string, version string, err error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT text, COALESCE(human_category, ''), COALESCE(human_sentiment, ''), corrected_at FROM mentions
		WHERE project_id = ? AND corrected_at IS NOT NULL ORDER BY corrected_at DESC LIMIT ?`, projectID, limit)
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
