package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// NewMention is a classified post ready to store.
type NewMention struct {
	Source       string
	ExternalID   string
	URL          string
	AuthorHandle string
	Text         string
	PublishedAt  time.Time
	Engagement   map[string]int64
	MonitorIDs   []string // monitors that matched, first is the primary
	IsRelevant   bool
	Category     string
	Sentiment    string
	Urgency      int
	AISummary    string
	Classifier   string
	CostUSD      float64
	// Own marks a post by the project's own account (see Mention.Own).
	Own bool
	// The classifier's one-sentence reasons (Mention.*Reason).
	CategoryReason, UrgencyReason, RelevanceReason string
	// Links are pages the post links to that neither URL nor Text shows
	// (an HN or Reddit link submission's target); stories group by them.
	Links []string
}

// IngestResult says what an ingest batch did.
type IngestResult struct {
	New          int
	Duplicates   int
	Dropped      int
	Created      []*Mention // stored mentions, in batch order
	QuotaReached bool
	// QuotaNotified: this batch made the period's first drop (it emitted
	// usage.quota_reached), so the caller logs it: once per project and
	// period, whichever process stored it.
	QuotaNotified bool
	Period        string        // the quota period (its first day) the batch counted in
	Queued        time.Duration // from submitted to its transaction begun
	Committed     time.Time     // when the transaction (and its events) committed
}

// Group commit. Batches from concurrent callers (one per scan being
// processed) share transactions: a writer goroutine, started when the
// queue fills and gone when it empties, takes every batch queued meanwhile
// into one transaction. A commit writes each dirty page once, and at
// thousands of posts a second the date- and author-ordered indexes see
// many rows of a large transaction land on the same pages: measured on a
// store of 1M mentions, 6.8 WAL pages per stored mention in transactions
// of 250, 2.7 in transactions of 2,500. SubmitIngest lets a caller queue
// its next batch while the last is being stored, so the queue holds the
// work of every scan in progress.

// maxGroupRows bounds the rows of one group transaction: the first
// batches of a burst are not held back long by the last, and the pages
// the transaction dirties stay within the writer's page cache.
const maxGroupRows = 1000

type ingestReq struct {
	ctx       context.Context
	projectID string
	quota     int
	batch     []NewMention
	keys      []storyKeys // each post's story keys (story_index.go)
	res       IngestResult
	err       error
	done      chan struct{}
	submitted time.Time
}

type ingestQueue struct {
	mu      sync.Mutex
	pending []*ingestReq
	writing bool
	wg      sync.WaitGroup // the writer goroutine, for Close
}

// IngestMentions stores a batch for one project: one mention per (project,
// source, external id) — a duplicate only gains monitor ids — counted once
// against the quota (0 = unlimited). Posts over the quota are dropped and
// counted. Relevant new mentions get a mention.created event; the first
// drop of a period a usage.quota_reached one. The batch is stored
// atomically (with its events), possibly in one transaction with other
// callers' batches.
func (s *Store) IngestMentions(ctx context.Context, projectID string, quota int, batch []NewMention) (IngestResult, error) {
	return s.SubmitIngest(ctx, projectID, quota, batch)()
}

// SubmitIngest queues a batch for IngestMentions and returns at once with
// a function that waits for the batch's result. Batches are stored in the
// order they are submitted.
func (s *Store) SubmitIngest(ctx context.Context, projectID string, quota int, batch []NewMention) (wait func() (IngestResult, error)) {
	if len(batch) == 0 {
		return func() (IngestResult, error) { return IngestResult{}, nil }
	}
	if err := ctx.Err(); err != nil {
		return func() (IngestResult, error) { return IngestResult{}, err }
	}
	clean := make([]NewMention, len(batch))
	for i, m := range batch {
		clean[i] = m.clean()
	}
	batch = clean
	req := &ingestReq{ctx: ctx, projectID: projectID, quota: quota, batch: batch, done: make(chan struct{}), submitted: time.Now()}
	// Story keys are computed here, in the caller's goroutine, not by the
	// single writer.
	req.keys = batchKeys(projectID, batch)
	q := &s.ingest
	q.mu.Lock()
	q.pending = append(q.pending, req)
	if !q.writing {
		q.writing = true
		q.wg.Add(1)
		go s.writeIngests()
	}
	q.mu.Unlock()
	return func() (IngestResult, error) {
		<-req.done
		return req.res, req.err
	}
}

// writeIngests stores queued batches, a group at a time, until the queue
// is empty.
func (s *Store) writeIngests() {
	q := &s.ingest
	defer q.wg.Done()
	for {
		q.mu.Lock()
		group := q.take()
		if len(group) == 0 {
			q.writing = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		s.ingestGroup(group)
	}
}

// take removes the next group from the queue (q.mu held): at least one
// batch, then more while the group stays under maxGroupRows.
func (q *ingestQueue) take() []*ingestReq {
	n, rows := 0, 0
	for n < len(q.pending) && (n == 0 || rows+len(q.pending[n].batch) <= maxGroupRows) {
		rows += len(q.pending[n].batch)
		n++
	}
	group := q.pending[:n:n]
	q.pending = q.pending[n:]
	return group
}

// ingestGroup stores the group's batches in one transaction and answers
// each. If a batch fails, the group is rolled back and each batch is stored
// in a transaction of its own, so it fails alone. (Savepoints would isolate
// them too, but releasing one frees its in-memory journal, which costs more
// than the group saves.)
func (s *Store) ingestGroup(group []*ingestReq) {
	begun := time.Now()
	// The transaction does not end with one caller's context.
	ctx := context.WithoutCancel(group[0].ctx)
	if err := s.ingestTx(ctx, group); err != nil {
		if len(group) == 1 {
			group[0].err = err
		} else {
			for _, r := range group {
				if err := s.ingestTx(ctx, []*ingestReq{r}); err != nil {
					r.err = err
				}
			}
		}
	}
	committed := time.Now()
	for _, r := range group {
		if r.err != nil {
			r.res = IngestResult{}
		} else {
			r.res.Queued, r.res.Committed = begun.Sub(r.submitted), committed
		}
		close(r.done)
	}
}

// ingestTx stores reqs in one transaction. A batch whose caller gave up
// before its turn is skipped with its context's error.
func (s *Store) ingestTx(ctx context.Context, reqs []*ingestReq) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.storyBegin(ctx, tx); err != nil {
			return err
		}
		for _, r := range reqs {
			if r.err = r.ctx.Err(); r.err != nil {
				continue
			}
			if len(r.keys) != len(r.batch) {
				r.keys = batchKeys(r.projectID, r.batch)
			}
			assign := func(i int, m *Mention, rowid int64) error { return s.assignStory(ctx, tx, m, rowid, &r.keys[i]) }
			if r.res, r.err = s.ingestBatch(ctx, tx, r.projectID, r.quota, r.batch, assign); r.err != nil {
				return r.err
			}
		}
		return nil
	})
	if err != nil {
		s.stories.invalidate() // it may hold stories that were rolled back
	}
	return err
}

// ingestBatch stores one caller's batch inside tx; assign files each new
// mention (batch index, stored row) in its story.
func (s *Store) ingestBatch(ctx context.Context, tx *sql.Tx, projectID string, quota int, batch []NewMention,
	assign func(i int, m *Mention, rowid int64) error) (IngestResult, error) {
	var res IngestResult
	t := time.Now().UTC()
	ts := FormatTime(t)
	period := PeriodStart(t)
	var used int
	var notified bool
	err := tx.QueryRowContext(ctx, `SELECT mentions_used, quota_notified FROM usage_periods WHERE project_id = ? AND period_start = ?`, projectID, period).
		Scan(&used, &notified)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return res, err
	}
	known, err := s.knownInTx(ctx, tx, projectID, batch)
	if err != nil {
		return res, err
	}
	link, err := tx.PrepareContext(ctx, `INSERT INTO mention_monitors(mention_id, monitor_id) VALUES (?,?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return res, err
	}
	defer link.Close()
	evIns, err := tx.PrepareContext(ctx, insertEventSQL)
	if err != nil {
		return res, err
	}
	defer evIns.Close()
	var cost float64
	// The batch's new mentions are stored in three steps: decided here
	// (duplicates, quota), inserted together (insertMentions), then
	// linked to their monitors, filed in stories and announced, in batch
	// order. A story only ever joins an earlier mention, stored by then.
	var fresh []*freshMention
	for i, nm := range batch {
		key := nm.Source + "\x00" + nm.ExternalID
		if k, ok := known[key]; ok {
			res.Duplicates++
			if k.id == "" { // stored earlier in this batch
				continue
			}
			merged := mergeIDs(k.monitorIDs, nm.MonitorIDs)
			if len(merged) != len(k.monitorIDs) {
				if _, err := tx.ExecContext(ctx, `UPDATE mentions SET monitor_ids = ? WHERE id = ?`, toJSON(merged), k.id); err != nil {
					return res, err
				}
				for _, mid := range nm.MonitorIDs {
					if _, err := link.ExecContext(ctx, k.id, mid); err != nil {
						return res, err
					}
				}
				k.monitorIDs = merged
				known[key] = k
			}
			continue
		}
		if quota > 0 && used >= quota {
			res.Dropped++
			continue
		}
		// UUIDv7: time-ordered ids append to the primary-key index instead
		// of landing on random pages of it.
		m := &Mention{ID: uuid.Must(uuid.NewV7()).String(), ProjectID: projectID, MonitorIDs: mergeIDs(nil, nm.MonitorIDs), Source: nm.Source, ExternalID: nm.ExternalID,
			URL: nm.URL, AuthorHandle: nm.AuthorHandle, Text: nm.Text, PublishedAt: FormatTime(nm.PublishedAt), CollectedAt: ts,
			Engagement: nm.Engagement, IsRelevant: nm.IsRelevant, Category: nm.Category, Sentiment: nm.Sentiment, Urgency: nm.Urgency,
			AISummary: nm.AISummary, Status: "new", Classifier: nm.Classifier, UpdatedAt: ts,
			Own: nm.Own, CategoryReason: nm.CategoryReason, UrgencyReason: nm.UrgencyReason, RelevanceReason: nm.RelevanceReason}
		if m.Engagement == nil {
			m.Engagement = map[string]int64{}
		}
		if len(m.MonitorIDs) > 0 {
			m.MonitorID = &m.MonitorIDs[0]
		}
		vals := []any{m.ID, projectID, m.MonitorID, toJSON(m.MonitorIDs), m.Source, m.ExternalID, m.URL, m.AuthorHandle, m.Text,
			m.PublishedAt, m.CollectedAt, toJSON(m.Engagement), boolInt(m.IsRelevant), m.Category, m.Sentiment, m.Urgency, m.AISummary,
			m.Classifier, nm.CostUSD, m.UpdatedAt, boolInt(m.Own), m.CategoryReason, m.UrgencyReason, m.RelevanceReason}
		if s.pg {
			vals = append(vals, Fold(m.Text))
		}
		fresh = append(fresh, &freshMention{i: i, m: m, vals: vals})
		known[key] = knownMention{} // a repeat later in the batch is a duplicate
		used++
		cost += nm.CostUSD
		res.New++
		res.Created = append(res.Created, m)
	}
	if err := s.insertMentions(ctx, tx, fresh); err != nil {
		return res, err
	}
	if err := s.linkMentions(ctx, tx, link, fresh); err != nil {
		return res, err
	}
	rowids := make([]int64, 0, len(fresh))
	var created []*Event // PostgreSQL: inserted together below
	for _, f := range fresh {
		rowids = append(rowids, f.rowid)
		if err := assign(f.i, f.m, f.rowid); err != nil {
			return res, err
		}
		if f.m.IsRelevant {
			ev := newMentionRefEvent(projectID, "mention.created", f.m.ID)
			if s.pg {
				created = append(created, ev)
			} else if err := insertEventStmt(ctx, tx, evIns, ev); err != nil {
				return res, err
			}
		}
	}
	if err := insertEventRows(ctx, tx, created); err != nil {
		return res, err
	}
	if len(rowids) > 0 && !s.pg {
		// The search indexer picks these up (see IndexSearch); PostgreSQL's
		// trigram index took them in with the rows.
		if _, err := tx.ExecContext(ctx, `INSERT INTO fts_pending(rowid) SELECT value FROM json_each(?)`, toJSON(rowids)); err != nil {
			return res, err
		}
	}
	if err := addUsage(ctx, tx, projectID, period, res.New, res.Dropped, cost); err != nil {
		return res, err
	}
	if res.Dropped > 0 || (quota > 0 && used >= quota) {
		res.QuotaReached = true
	}
	if res.QuotaReached && !notified && res.Dropped > 0 {
		ev, err := NewEvent(projectID, "usage.quota_reached", map[string]any{"period_start": period, "mentions_included": quota, "mentions_used": used})
		if err != nil {
			return res, err
		}
		if err := insertEvent(ctx, tx, ev); err != nil {
			return res, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE usage_periods SET quota_notified = 1 WHERE project_id = ? AND period_start = ?`, projectID, period); err != nil {
			return res, err
		}
		res.QuotaNotified = true
	}
	res.Period = period
	return res, nil
}

// freshMention is a new mention of a batch: its index in the batch, the
// row's values in mentionInsertCols order, and its rowid once inserted.
type freshMention struct {
	i     int
	m     *Mention
	vals  []any
	rowid int64
}

// mentionInsertCols are the columns ingest writes ('new' status aside);
// PostgreSQL adds text_folded, the folded text its trigram index holds
// (searchCond). SQLite folds in the query instead.
const mentionInsertCols = `id, project_id, monitor_id, monitor_ids, source, external_id, url, author_handle, text,
		published_at, collected_at, engagement, is_relevant, category, sentiment, urgency, ai_summary, classifier, cost_usd, updated_at,
		own, category_reason, urgency_reason, relevance_reason`

// pgInsertRows bounds the rows of one multi-row INSERT on PostgreSQL
// (26 values a row, far below its 65,535 parameters).
const pgInsertRows = 500

// insertMentions inserts the fresh mentions and fills in their rowids
// (RETURNING: pgx has no LastInsertId). SQLite runs one prepared
// statement per row, which costs it no round trip; PostgreSQL gets
// multi-row statements, each answering with the rows' ids and rowids, so
// a batch costs a few round trips instead of one per mention.
func (s *Store) insertMentions(ctx context.Context, tx *sql.Tx, fresh []*freshMention) error {
	if len(fresh) == 0 {
		return nil
	}
	if !s.pg {
		ins, err := tx.PrepareContext(ctx, `INSERT INTO mentions(`+mentionInsertCols+`, status)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'new') RETURNING rowid`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, f := range fresh {
			if err := ins.QueryRowContext(ctx, f.vals...).Scan(&f.rowid); err != nil {
				return err
			}
		}
		return nil
	}
	for start := 0; start < len(fresh); start += pgInsertRows {
		chunk := fresh[start:min(start+pgInsertRows, len(fresh))]
		var q strings.Builder
		q.WriteString(`INSERT INTO mentions(` + mentionInsertCols + `, text_folded, status) VALUES `)
		args := make([]any, 0, len(chunk)*len(chunk[0].vals))
		byID := make(map[string]*freshMention, len(chunk))
		for i, f := range chunk {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString(`(?` + strings.Repeat(`,?`, len(f.vals)-1) + `,'new')`)
			args = append(args, f.vals...)
			byID[f.m.ID] = f
		}
		q.WriteString(` RETURNING id, rowid`)
		rows, err := tx.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			var id string
			var rowid int64
			if err := rows.Scan(&id, &rowid); err != nil {
				rows.Close()
				return err
			}
			if f := byID[id]; f != nil {
				f.rowid = rowid
				n++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if n != len(chunk) {
			return fmt.Errorf("ingest: %d of %d mentions came back from the insert", n, len(chunk))
		}
	}
	return nil
}

// linkMentions records which monitors matched each fresh mention: through
// the prepared link statement on SQLite, in multi-row statements on
// PostgreSQL.
func (s *Store) linkMentions(ctx context.Context, tx *sql.Tx, link *sql.Stmt, fresh []*freshMention) error {
	if !s.pg {
		for _, f := range fresh {
			for _, mid := range f.m.MonitorIDs {
				if _, err := link.ExecContext(ctx, f.m.ID, mid); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var args []any
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		q := `INSERT INTO mention_monitors(mention_id, monitor_id) VALUES (?,?)` + strings.Repeat(`,(?,?)`, len(args)/2-1) + ` ON CONFLICT DO NOTHING`
		_, err := tx.ExecContext(ctx, q, args...)
		args = args[:0]
		return err
	}
	for _, f := range fresh {
		for _, mid := range f.m.MonitorIDs {
			args = append(args, f.m.ID, mid)
			if len(args) >= 2*2000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// insertEventRows inserts events in multi-row statements, in order (their
// seq follows it): PostgreSQL's ingest, where a statement per event costs
// a round trip.
func insertEventRows(ctx context.Context, tx *sql.Tx, evs []*Event) error {
	const perStatement = 1000 // 6 values each
	for start := 0; start < len(evs); start += perStatement {
		chunk := evs[start:min(start+perStatement, len(evs))]
		args := make([]any, 0, 6*len(chunk))
		for _, ev := range chunk {
			a, err := eventArgs(ev)
			if err != nil {
				return err
			}
			args = append(args, a...)
		}
		// The columns of insertEventSQL, eventArgs' order; no seq is read.
		q := `INSERT INTO events(id, project_id, type, payload, created_at, mention_id) VALUES (?,?,?,?,?,?)` +
			strings.Repeat(`,(?,?,?,?,?,?)`, len(chunk)-1)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// knownMention is a stored mention a batch repeats (id empty: one the
// batch itself stored).
type knownMention struct {
	id         string
	monitorIDs []string
}

// knownInTx looks up, in one query per source, which of the batch's posts
// the project already holds, keyed by source and external id.
func (s *Store) knownInTx(ctx context.Context, tx *sql.Tx, projectID string, batch []NewMention) (map[string]knownMention, error) {
	bySource := map[string][]string{}
	for _, nm := range batch {
		bySource[nm.Source] = append(bySource[nm.Source], nm.ExternalID)
	}
	known := make(map[string]knownMention, len(batch))
	for source, ids := range bySource {
		found, err := s.knownMentions(ctx, tx, projectID, source, ids)
		if err != nil {
			return nil, err
		}
		for ext, k := range found {
			known[source+"\x00"+ext] = k
		}
	}
	return known, nil
}

// knownMentions returns the stored mentions among ids of (project, source),
// keyed by external id, read through q (the read pool, or the writer's
// transaction when the answer must hold until it commits).
func (s *Store) knownMentions(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, projectID, source string, ids []string) (map[string]knownMention, error) {
	in, arg := `IN (`+s.jsonValues()+`)`, any(toJSON(ids))
	if s.pg {
		// An array the planner sees the length of: it looks each id up in
		// the (project, source, external id) key instead of guessing a
		// set-returning function's size.
		in, arg = `= ANY(?)`, ids
	}
	rows, err := q.QueryContext(ctx, `SELECT external_id, id, monitor_ids FROM mentions
		WHERE project_id = ? AND source = ? AND external_id `+in, projectID, source, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	known := map[string]knownMention{}
	for rows.Next() {
		var ext, mids string
		var k knownMention
		if err := rows.Scan(&ext, &k.id, &mids); err != nil {
			return nil, err
		}
		k.monitorIDs = strList(mids)
		known[ext] = k
	}
	return known, rows.Err()
}

func mergeIDs(have, add []string) []string {
	out := append([]string{}, have...) // never nil: stored as a JSON array
	for _, a := range add {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
