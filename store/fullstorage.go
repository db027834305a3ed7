package store

import (
	"context"
	"errors"
)

// CapSQLiteSize caps the SQLite database at its current size (PRAGMA
// max_page_count on the single writer connection): a write that needs a
// new page then fails with SQLITE_FULL, as it does on a full disk, while
// writes that fit in pages already there still succeed, also as on a full
// disk. The returned function lifts the cap (space is back). It exists for
// fault tests, which cannot fill a real disk without privileges; SQLite
// reports both the same way, so the code under test cannot tell them
// apart.
func (s *Store) CapSQLiteSize(ctx context.Context) (lift func() error, err error) {
	if s.pg {
		return nil, errors.New("CapSQLiteSize: SQLite only")
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// max_page_count cannot go below the current page count: 1 caps the
	// database where it is.
	if _, err := conn.ExecContext(ctx, `PRAGMA max_page_count = 1`); err != nil {
		return nil, err
	}
	return func() error {
		conn, err := s.w.Conn(context.WithoutCancel(ctx))
		if err != nil {
			return err
		}
		defer conn.Close()
		_, err = conn.ExecContext(ctx, `PRAGMA max_page_count = 4294967294`)
		return err
	}, nil
}
