package store

import (
	"context"
	"os"
)

// Size is the space the database takes: the SQLite file and its WAL, or
// on PostgreSQL the tables of this store's schema with their indexes and
// TOAST.
func (s *Store) Size(ctx context.Context) (int64, error) {
	if s.pg {
		var n int64
		err := s.rd(ctx).QueryRowContext(ctx, `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'm')`).Scan(&n)
		return n, err
	}
	var n int64
	for _, f := range []string{s.path, s.path + "-wal"} {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}
