package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRequestTxHoldsEveryWrite: inside a request transaction a store write
// is seen by the request's own reads, not by others, and is gone after a
// rollback; a unique violation in it (a 409 to the caller) does not spoil
// the rest of the request on PostgreSQL; a nested s.tx that fails undoes
// only itself; the scheduler-style hook runs only after a commit.
func TestRequestTxHoldsEveryWrite(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.CreateUser(ctx, "taken@example.com", "h", "Taken"); err != nil {
		t.Fatal(err)
	}

	rtx, err := s.BeginRequestTx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rctx := rtx.Context()
	ran := 0
	s.AfterCommit(rctx, func() { ran++ })
	if _, err := s.CreateUser(rctx, "a@example.com", "h", "A"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(rctx, "taken@example.com", "h", "Again"); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate email in the request: %v, want ErrConflict", err)
	}
	failed := errors.New("fn failed")
	if err := s.tx(rctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(rctx, `INSERT INTO users(id,email,password_hash,full_name,created_at) VALUES ('u-nested','nested@example.com','h','N',?)`, now()); err != nil {
			return err
		}
		return failed
	}); !errors.Is(err, failed) {
		t.Fatalf("nested tx: %v", err)
	}
	if u, err := s.UserByEmail(rctx, "a@example.com"); err != nil || u.FullName != "A" {
		t.Fatalf("the request does not see its own write: %v %v", u, err)
	}
	if _, err := s.UserByEmail(rctx, "nested@example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a failed nested tx kept its write: %v", err)
	}
	if _, err := s.UserByEmail(ctx, "a@example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another connection sees the uncommitted write: %v", err)
	}
	rtx.Rollback()
	if _, err := s.UserByEmail(ctx, "a@example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rolled back write stayed: %v", err)
	}
	if ran != 0 {
		t.Fatal("after-commit hook ran on rollback")
	}

	rtx, err = s.BeginRequestTx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.AfterCommit(rtx.Context(), func() {
		// Runs after the commit: another connection sees the write.
		if _, err := s.UserByEmail(ctx, "b@example.com"); err != nil {
			t.Errorf("hook ran before the write was visible: %v", err)
		}
		ran++
	})
	if _, err := s.CreateUser(rtx.Context(), "taken@example.com", "h", "Again"); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate email: %v", err)
	}
	if _, err := s.CreateUser(rtx.Context(), "b@example.com", "h", "B"); err != nil {
		t.Fatal(err)
	}
	if err := rtx.Commit(); err != nil {
		t.Fatal(err)
	}
	if ran != 1 {
		t.Fatalf("after-commit hook ran %d times", ran)
	}
}

// TestIdemAnswerCommitsWithTheWrite: the write and the stored answer are
// one commit; a key whose request rolled back (a crash before the commit
// is the same) is free at once.
func TestIdemAnswerCommitsWithTheWrite(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	rtx, rec, err := s.BeginIdem(ctx, "project:p", "create_user", "key-00001")
	if err != nil || rec != nil {
		t.Fatal(rec, err)
	}
	if _, err := s.CreateUser(rtx.Context(), "a@example.com", "h", "A"); err != nil {
		t.Fatal(err)
	}
	rtx.Rollback() // as a crash before the commit would
	rtx, rec, err = s.BeginIdem(ctx, "project:p", "create_user", "key-00001")
	if err != nil || rec != nil {
		t.Fatalf("key after a rolled back request: %+v %v, want free", rec, err)
	}
	if _, err := s.CreateUser(rtx.Context(), "a@example.com", "h", "A"); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishIdem(rtx, "project:p", "create_user", "key-00001", "h1", 200, []byte(`{"ok":1}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	_, rec, err = s.BeginIdem(ctx, "project:p", "create_user", "key-00001")
	if err != nil || rec == nil || rec.Status != 200 || string(rec.Response) != `{"ok":1}` {
		t.Fatalf("stored answer: %+v %v", rec, err)
	}
	if _, err := s.UserByEmail(ctx, "a@example.com"); err != nil {
		t.Fatal(err)
	}
}

// TestFullDiskRollsBackTheWrite: when the answer cannot be stored for lack
// of space, the request's write is not kept either, the store says it is
// full until a write commits again, and the error is recognised as a full
// disk.
func TestFullDiskRollsBackTheWrite(t *testing.T) {
	if os.Getenv("EARSHOT_TEST_DATABASE_URL") != "" {
		t.Skip("SQLite's max_page_count simulates the full disk; PostgreSQL's disk_full is classified in TestIsStorageFull")
	}
	ctx := context.Background()
	s := openTest(t)
	lift, err := s.CapSQLiteSize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, full := s.StorageFull(); full {
		t.Fatal("full before any write failed")
	}
	rtx, _, err := s.BeginIdem(ctx, "project:p", "create_user", "key-00002")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(rtx.Context(), "a@example.com", "h", "A"); err != nil {
		t.Fatal(err) // fits in a page the database has
	}
	big := []byte(`{"pad":"` + strings.Repeat("x", 1<<20) + `"}`) // needs new pages
	err = s.FinishIdem(rtx, "project:p", "create_user", "key-00002", "h", 200, big, time.Hour)
	if !IsStorageFull(err) {
		t.Fatalf("storing the answer on a full disk: %v, want a storage-full error", err)
	}
	if _, err := s.UserByEmail(ctx, "a@example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the write stayed although its answer was not stored: %v", err)
	}
	if _, full := s.StorageFull(); !full || s.StorageFailures() == 0 {
		t.Fatal("the store does not report the full disk")
	}
	if err := lift(); err != nil {
		t.Fatal(err)
	}
	if _, full := s.StorageFull(); !full {
		t.Fatal("full cleared before a write succeeded")
	}
	rtx, rec, err := s.BeginIdem(ctx, "project:p", "create_user", "key-00002")
	if err != nil || rec != nil {
		t.Fatalf("key after the failed request: %+v %v, want free", rec, err)
	}
	if _, err := s.CreateUser(rtx.Context(), "a@example.com", "h", "A"); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishIdem(rtx, "project:p", "create_user", "key-00002", "h", 200, big, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, full := s.StorageFull(); full {
		t.Fatal("still full after a write committed")
	}
}

func TestIsStorageFull(t *testing.T) {
	for _, c := range []struct {
		err  error
		full bool
	}{
		{&pgconn.PgError{Code: "53100", Message: "could not extend file: No space left on device"}, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{errors.New("database or disk is full"), false}, // only typed errors count
		{ErrStorageFull, true},
		{nil, false},
	} {
		if got := IsStorageFull(c.err); got != c.full {
			t.Errorf("%v: %v, want %v", c.err, got, c.full)
		}
	}
}
