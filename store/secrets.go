package store

import (
	"context"
	"crypto/rand"
)

// InstallationSecret returns the named random secret of this installation,
// creating it (size random bytes) on first use. Concurrent first uses agree
// on one value: the first insert wins and every caller reads it back.
func (s *Store) InstallationSecret(ctx context.Context, name string, size int) ([]byte, error) {
	fresh := make([]byte, size)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO installation_secrets(name, value, created_at) VALUES (?,?,?) ON CONFLICT(name) DO NOTHING`,
		name, fresh, now()); err != nil {
		return nil, err
	}
	var v []byte
	err := s.wr(ctx).QueryRowContext(ctx, `SELECT value FROM installation_secrets WHERE name = ?`, name).Scan(&v)
	return v, err
}
