package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"earshot/api"
	"earshot/internal/workers"

	"earshot/search"
	"modernc.org/sqlite"
)

// Mention is a collected post with its classification, as stored. It has
// no JSON of its own: REST, MCP and webhook payloads show its public record
// (Record, api.Mention).
type Mention struct {
	ID           string
	ProjectID    string
	MonitorID    *string
	MonitorIDs   []string
	Source       string
	ExternalID   string
	URL          string
	AuthorHandle string
	Text         string
	PublishedAt  string
	CollectedAt  string
	Engagement   map[string]int64
	IsRelevant   bool
	Category     string
	Sentiment    string
	Urgency      int
	AISummary    string
	Status       string
	Classifier   string
	UpdatedAt    string

	// Own: posted by one of the project's own accounts (a watched handle
	// of an own-brand monitor) or on its website; stored with
	// is_relevant=false, not a mention to triage.
	Own bool
	// One short sentence each: why this category, urgency and relevance
	// ("" when the classifier gave none, and for mentions stored before
	// reasons were kept).
	CategoryReason  string
	UrgencyReason   string
	RelevanceReason string
	// PublicVisibility is the editor's choice for the public page: auto
	// (the wall's rule decides), featured or hidden (curation.go).
	PublicVisibility string
	// The mention's story (stories.go): null while no other mention
	// shares its link or text; story_count is 1 then.
	StoryID      *string
	StoryCount   int
	StorySources map[string]int
	// Teamwork (teamwork.go): the member the mention is assigned to (nil:
	// nobody) with their name as shown, and the free tags, sorted.
	Assignee *api.Assignee
	Tags     []string
}

const mentionCols = `m.id, m.project_id, m.monitor_id, m.monitor_ids, m.source, m.external_id, m.url, m.author_handle, m.text, m.published_at,
	m.collected_at, m.engagement, m.is_relevant, m.category, m.sentiment, m.urgency, m.ai_summary, m.status, m.classifier, m.updated_at,
	m.own, m.category_reason, m.urgency_reason, m.relevance_reason,
	m.public_visibility,
	m.story_id, (SELECT s.mention_count || ' ' || s.sources FROM stories s WHERE s.id = m.story_id),
	m.assignee_id, (SELECT CASE WHEN u.full_name <> '' THEN u.full_name ELSE u.email END FROM users u WHERE u.id = m.assignee_id), m.tags`

func scanMention(row interface{ Scan(...any) error }) (*Mention, error) {
	var m Mention
	var mids, eng string
	var storyAgg, assigneeID, assigneeName sql.NullString
	var tags string
	err := row.Scan(&m.ID, &m.ProjectID, &m.MonitorID, &mids, &m.Source, &m.ExternalID, &m.URL, &m.AuthorHandle, &m.Text, &m.PublishedAt,
		&m.CollectedAt, &eng, &m.IsRelevant, &m.Category, &m.Sentiment, &m.Urgency, &m.AISummary, &m.Status, &m.Classifier, &m.UpdatedAt,
		&m.Own, &m.CategoryReason, &m.UrgencyReason, &m.RelevanceReason,
		&m.PublicVisibility,
		&m.StoryID, &storyAgg,
		&assigneeID, &assigneeName, &tags)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	m.MonitorIDs = strList(mids)
	if assigneeID.Valid {
		m.Assignee = &api.Assignee{ID: assigneeID.String, Name: assigneeName.String}
	}
	m.Tags = strings.Fields(tags)
	if err := scanStoryAgg(&m, storyAgg); err != nil {
		return nil, err
	}
	m.Engagement = map[string]int64{}
	if eng != "" {
		if err := json.Unmarshal([]byte(eng), &m.Engagement); err != nil {
			return nil, fmt.Errorf("mention %s engagement: %w", m.ID, err)
		}
	}
	return &m, nil
}

// Fold is the case folding used by search (search.Fold): Unicode-aware,
// so "É" finds "é".
func Fold(s string) string { return search.Fold(s) }

func init() {
	// fold(text) lets SQL compare with Unicode case folding, where the
	// built-in lower() only folds ASCII.
	sqlite.MustRegisterDeterministicScalarFunction("earshot_fold", 1, func(ctx *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return Fold(v), nil
		case []byte:
			return Fold(string(v)), nil
		case nil:
			return nil, nil
		default:
			return fmt.Sprint(v), nil
		}
	})
	// earshot_match(text, leaf) is one word or phrase of a search over
	// the text, folded here (search.Query.SQL writes the calls).
	sqlite.MustRegisterDeterministicScalarFunction("earshot_match", 2, func(ctx *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		text, _ := args[0].(string)
		if b, ok := args[0].([]byte); ok {
			text = string(b)
		}
		leaf, _ := args[1].(string)
		return int64(boolInt(search.MatchLeaf(Fold(text), leaf))), nil
	})
}

// Mention returns one mention of the project.
func (s *Store) Mention(ctx context.Context, projectID, id string) (*Mention, error) {
	return scanMention(s.rd(ctx).QueryRowContext(ctx, `SELECT `+mentionCols+` FROM mentions m WHERE m.id = ? AND m.project_id = ?`, id, projectID))
}

// UpdateMentionStatus sets a mention's triage status (UpdateMention).
func (s *Store) UpdateMentionStatus(ctx context.Context, projectID, id, status string) (*Mention, error) {
	return s.UpdateMention(ctx, projectID, id, MentionChange{Status: status})
}

// ownBrandLink is false only for a mention that competitor monitors alone
// matched. A mention is the brand's when a monitor of the brand's own
// matched it: group_name my_brand, or filed under a keyword group with
// is_own, or neither competitors nor filed under a competitor group
// (custom, the default, is the brand's own unless said otherwise). A
// mention with no monitor link (stored by an import or a test, never by a
// collector) is not a competitor's either. It is a residual filter: the
// mention's links are the head of mention_monitors' key and monitors and
// keyword groups are read by key, so each candidate costs a few lookups
// and the walk it filters stays in date order.
//
// On PostgreSQL each EXISTS ends in OFFSET 0, which keeps it a per-row
// lookup: without it the planner may turn the correlated EXISTS into a
// hashed subplan that first reads every link of every own-brand monitor
// (all of the project's mentions), which it picks when monitors and
// keyword_groups look bigger than they are (not yet analysed): the public
// wall took 190 ms at 300k mentions and 367 ms at 1M that way, against
// 2 ms with lookups. Same rows, only the plan differs; SQLite's text is
// unchanged.
func ownBrandLink(pg bool) string {
	fence := ""
	if pg {
		fence = " OFFSET 0"
	}
	return `(NOT EXISTS (SELECT 1 FROM mention_monitors l0 WHERE l0.mention_id = m.id` + fence + `)
		OR EXISTS (SELECT 1 FROM mention_monitors l
		JOIN monitors mo ON mo.id = l.monitor_id
		LEFT JOIN keyword_groups g ON g.id = mo.group_id
		WHERE l.mention_id = m.id AND (mo.group_name = 'my_brand' OR g.is_own = 1
			OR (mo.group_name <> 'competitors' AND mo.group_id IS NULL))` + fence + `))`
}

// Position is a keyset position: (published_at, id) or, in sync mode,
// (collected_at, id).
type Position struct {
	At string `json:"t"`
	ID string `json:"i"`
	// Urgency is the third key when ordering by urgency (PositionOf).
	Urgency int `json:"u,omitempty"`
}

// rareSearchCap: a search whose index matches stay under this is answered
// from the index then sorted; a more common one is found faster by walking
// the date order and stopping at the page size.
const rareSearchCap = 2000

// ListMentions returns up to limit mentions after pos in the filter's order.
func (s *Store) ListMentions(ctx context.Context, f MentionFilter, after *Position, limit int) ([]*Mention, error) {
	if f.CollapseStories {
		return s.listCollapsed(ctx, f, after, limit)
	}
	q, args, err := s.mentionQuery(ctx, f, after, limit)
	if err != nil {
		return nil, err
	}
	return s.queryMentions(ctx, q, args...)
}

// queryMentions runs a query selecting mentionCols on the read pool.
func (s *Store) queryMentions(ctx context.Context, q string, args ...any) ([]*Mention, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Mention{} // an empty page is [], not null
	for rows.Next() {
		m, err := scanMention(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ExplainMentions returns the query plan for a filter, SQLite's EXPLAIN
// QUERY PLAN or PostgreSQL's EXPLAIN (tests guard against plans that fall
// back to scanning the table).
func (s *Store) ExplainMentions(ctx context.Context, f MentionFilter, after *Position, limit int) (string, error) {
	q, args, err := s.mentionQuery(ctx, f, after, limit)
	if err != nil {
		return "", err
	}
	return s.explain(ctx, q, args)
}

// explain returns the backend's plan for q, one line per step.
func (s *Store) explain(ctx context.Context, q string, args []any) (string, error) {
	if s.pg {
		rows, err := s.rd(ctx).QueryContext(ctx, "EXPLAIN "+q, args...)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return "", err
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
		return b.String(), rows.Err()
	}
	rows, err := s.rd(ctx).QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return "", err
		}
		b.WriteString(detail)
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}

func (s *Store) mentionQuery(ctx context.Context, f MentionFilter, after *Position, limit int) (string, []any, error) {
	var where []string
	var args []any
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	sync := f.CollectedSince != nil
	var from string
	var fromArgs []any
	orderCol := "m.published_at"
	if sync {
		orderCol = "m.collected_at"
	}
	byUrgency := f.ByUrgency && !sync
	rare := ""
	if !s.pg {
		rare = s.rareSearch(ctx, f)
	}
	// Where the rows come from. CROSS JOIN makes SQLite fetch candidates by
	// key instead of walking the project in date order; a walk names its
	// date-ordered index, or SQLite may pick a value index (status, source,
	// category and monitor ones are not in date order, migrations 070, 071)
	// and sort every match.
	switch {
	case s.pg:
		// PostgreSQL plans from statistics: the feed, urgency, author,
		// story and curated indexes serve the same orders, and the
		// pg_trgm index answers a search's LIKE (searchCond), so the
		// query names the table alone and the planner picks between
		// walking the order and fetching a rare value's rows. A search is
		// the exception: its selectivity is guessed from a sample of
		// texts, and a rare needle the sample happens to hold looks common
		// enough to walk the date order for, which then reads the whole
		// project. As on SQLite, the trigram index is asked first; a rare
		// search's matches are fetched from it and sorted (pgSource).
		from, fromArgs = s.pgSource(ctx, f)
		if f.PublicVisibility == VisibilityFeatured || f.PublicVisibility == VisibilityHidden {
			add(`m.public_visibility <> 'auto'`) // lets the partial index match
		} else if f.Status != "" && f.Status != "new" && !sync && !byUrgency {
			add(`m.status <> 'new'`)
		}
		if f.Assignee != "" && f.Assignee != AssigneeNone {
			add(`m.assignee_id IS NOT NULL`) // lets the partial index match
		}
	case rare != "":
		// A rare search: the trigram index's matches plus rows the indexer
		// has not reached.
		from = `(SELECT rowid AS k FROM mentions_fts WHERE mentions_fts MATCH ? UNION SELECT rowid FROM fts_pending) AS cand
			CROSS JOIN mentions m ON m.rowid = cand.k`
		fromArgs = append(fromArgs, rare)
	case f.StoryID != "":
		// A story's mentions are few and have their own date index.
		from = `mentions m INDEXED BY mentions_story`
	case sync:
		from = `mentions m INDEXED BY mentions_collected`
	case f.AuthorHandle != "":
		from = `mentions m INDEXED BY mentions_author`
	case f.PublicVisibility == "featured" || f.PublicVisibility == "hidden":
		// Curated mentions are few and have their own date-ordered index.
		from = `mentions m INDEXED BY mentions_curated`
		add(`m.public_visibility <> 'auto'`) // the partial index's condition
	case f.Assignee != "" && f.Assignee != AssigneeNone:
		// One member's assignments are few: their date-ordered partial
		// index (migration 250).
		from = `mentions m INDEXED BY mentions_assigned`
		add(`m.assignee_id IS NOT NULL`) // the partial index's condition
	case f.Tag != "":
		// A tag's mentions are fetched by key, then sorted.
		from = `(SELECT mention_id AS k FROM mention_tags WHERE project_id = ? AND tag = ?) AS cand CROSS JOIN mentions m ON m.id = cand.k`
		fromArgs = append(fromArgs, f.ProjectID, f.Tag)
	case byUrgency:
		from, fromArgs = s.urgencySource(ctx, f)
	case f.Status != "" && f.Status != "new":
		from = `mentions m INDEXED BY mentions_triaged_feed`
		add(`m.status <> 'new'`) // the partial index's condition, spelled out for SQLite
	default:
		from = `mentions m INDEXED BY mentions_feed`
		if c, ok := s.rareValue(ctx, f); ok {
			from = `(` + c.rows + `) AS cand CROSS JOIN mentions m ON m.` + c.key + ` = cand.k`
			fromArgs = append(fromArgs, c.args...)
		}
	}
	f.conditions(s.pg, add)
	if after != nil {
		if byUrgency {
			add(`(m.urgency, m.published_at, m.id) < (?, ?, ?)`, after.Urgency, after.At, after.ID)
		} else if sync {
			add(`(`+orderCol+`, m.id) > (?, ?)`, after.At, after.ID)
		} else {
			add(`(`+orderCol+`, m.id) < (?, ?)`, after.At, after.ID)
		}
	}
	dir := "DESC"
	if sync {
		dir = "ASC"
	}
	order := orderCol + ` ` + dir + `, m.id ` + dir
	if byUrgency {
		order = `m.urgency DESC, ` + order
	}
	q := `SELECT ` + mentionCols + ` FROM ` + from + ` WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ` + order + ` LIMIT ?`
	args = append(append(fromArgs, args...), limit)
	return q, args, nil
}

// IndexSearch moves up to limit pending mentions into the trigram index (as
// folded text, see search.Query.FTS) in one transaction and reports how many it
// indexed. FTS5 flushes at every statement, so indexing many rows in one
// statement writes one segment instead of one per row.
//
// On PostgreSQL there is nothing to do: the pg_trgm index over text_folded
// is maintained in the ingest transaction itself.
func (s *Store) IndexSearch(ctx context.Context, limit int) (int, error) {
	if s.pg {
		return 0, nil
	}
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS fts_batch(rowid INTEGER PRIMARY KEY)`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM temp.fts_batch`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO temp.fts_batch SELECT rowid FROM fts_pending ORDER BY rowid LIMIT ?`, limit); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO mentions_fts(rowid, text) SELECT m.rowid, earshot_fold(m.text) FROM temp.fts_batch b JOIN mentions m ON m.rowid = b.rowid`)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		_, err = tx.ExecContext(ctx, `DELETE FROM fts_pending WHERE rowid IN (SELECT rowid FROM temp.fts_batch)`)
		return err
	})
	return int(n), err
}

// PendingSearch is how many mentions wait for the search indexer.
func (s *Store) PendingSearch(ctx context.Context) (int, error) {
	if s.pg {
		return 0, nil // indexed at insert
	}
	var n int
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM fts_pending`).Scan(&n)
	return n, err
}

// RunSearchIndexer indexes pending mentions until ctx ends, in batches of
// up to 20,000, waking every interval. It never stops on an error (a full
// disk, the database locked past the busy timeout): the round is recorded
// on w, logged and retried after a capped backoff, and the queue's length
// is kept on w so /healthz shows an indexer that is failing or behind.
func (s *Store) RunSearchIndexer(ctx context.Context, interval time.Duration, w *workers.Worker, log *slog.Logger) {
	if s.pg {
		<-ctx.Done() // PostgreSQL indexes at insert
		return
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	workers.Loop(ctx, w, log, interval, func(ctx context.Context) error {
		err := s.indexAllPending(ctx)
		// The queue is counted after a failed round too: it is what
		// grows while the indexer fails.
		if n, cerr := s.PendingSearch(ctx); cerr == nil {
			w.SetBacklog(int64(n), searchBehindAt)
		}
		return err
	})
}

// searchBehindAt is the unindexed queue from which the indexer counts as
// behind even while it succeeds: a healthy indexer drains 20,000 a round,
// and past this many, searches over the queue's rows slow noticeably.
const searchBehindAt = 100000

// indexAllPending indexes batches until fewer than a full batch wait.
func (s *Store) indexAllPending(ctx context.Context) error {
	for {
		n, err := s.IndexSearch(ctx, 20000)
		if err != nil {
			return fmt.Errorf("indexing mentions for search: %w", err)
		}
		if n < 20000 {
			return nil
		}
	}
}

// rareFacetCap: a source, category or monitor value that fewer mentions of
// the project hold is answered from its index (fetch them, sort by date);
// a more common one is found by walking the date order, where at least one
// row in (project size / rareFacetCap) matches. Fetching a candidate reads
// its row, wherever it lies: at 1M mentions 1,000 spread-out candidates
// take about 8 ms, and a walk that meets one match in 1,000 rows about as
// long. New mentions are the latest rows, next to each other in the table,
// so status=new allows four times as many.
var rareFacetCap = 1000

// valueRows is a filter value's mentions as its append-ordered index holds
// them (migrations 070, 071): rows selects them as column k, which equals
// the mention's key column.
type valueRows struct {
	rows, key string
	args      []any
	cap       int
	count     int // how many mentions hold it, once rareValue picked it
}

// rareValue picks, among the filter's monitor, status (new; triaged ones
// have their own date index), category and source, the value the fewest
// mentions hold, if fewer than its cap do.
func (s *Store) rareValue(ctx context.Context, f MentionFilter) (valueRows, bool) {
	var cands []valueRows
	if f.MonitorID != "" {
		cands = append(cands, valueRows{`SELECT mention_id AS k FROM mention_monitors INDEXED BY mention_monitors_by_monitor WHERE monitor_id = ?`,
			"id", []any{f.MonitorID}, rareFacetCap, 0})
	}
	for _, c := range []struct{ col, value string }{{"status", f.Status}, {"category", f.Category}, {"source", f.Source}} {
		if c.value != "" {
			limit := rareFacetCap
			if c.col == "status" {
				limit *= 4
			}
			cands = append(cands, valueRows{`SELECT rowid AS k FROM mentions INDEXED BY mentions_by_` + c.col + ` WHERE project_id = ? AND ` + c.col + ` = ?`,
				"rowid", []any{f.ProjectID, c.value}, limit, 0})
		}
	}
	var best valueRows
	fewest := 4 * rareFacetCap
	for _, c := range cands {
		limit := min(fewest, c.cap)
		if limit == 0 {
			continue
		}
		var n int
		if err := s.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+c.rows+` LIMIT ?) AS c`, append(c.args, limit)...).Scan(&n); err == nil && n < limit {
			best, fewest = c, n
			best.count = n
		}
	}
	return best, best.rows != ""
}

// pgSource is where a PostgreSQL query reads the filter's mentions m
// from: the table, or a rare search's matches fetched through the trigram
// index (OFFSET 0 keeps the subquery, and so the index, apart from the
// ordered walk or the date range a list or a count makes of the rest).
func (s *Store) pgSource(ctx context.Context, f MentionFilter) (string, []any) {
	if s.rareSearch(ctx, f) != "" {
		cond, args := f.query().SQL(true)
		return `(SELECT * FROM mentions m WHERE ` + cond + ` OFFSET 0) AS m`, args
	}
	return `mentions m`, nil
}

// rareSearch asks the trigram index whether the filter's search has few
// matches (in all projects), bounded so the question itself stays cheap.
// It returns the search's FTS5 query (SQLite's candidates; on PostgreSQL
// only a mark), "" for no search, a common one, or one the index cannot
// narrow (search.Query.FTS).
func (s *Store) rareSearch(ctx context.Context, f MentionFilter) string {
	q := f.query()
	if q == nil {
		return ""
	}
	fts, ok := q.FTS()
	if !ok {
		return ""
	}
	var n int
	if s.pg {
		cond, args := q.SQL(true)
		err := s.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM mentions m WHERE `+cond+` LIMIT ?) AS c`, append(args, rareSearchCap)...).Scan(&n)
		if err != nil || n >= rareSearchCap {
			return ""
		}
		return fts
	}
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT rowid FROM mentions_fts WHERE mentions_fts MATCH ? LIMIT ?)`,
		fts, rareSearchCap).Scan(&n)
	if err != nil || n >= rareSearchCap {
		return ""
	}
	return fts
}

// TriageExamples returns the most recently triaged mentions of a project:
// ignored ones are negative relevance examples, reviewed/done positive;
// and those still new whose relevance a person set (pulled back from the
// Filtered view, or filed there: UpdateMention), labelled so. The brand's
// own posts are left out: they are irrelevant for who wrote them, not for
// their words, and a team ignoring its own announcements must not teach
// that the product's words are off-topic. Each half reads its own partial
// index (mentions_triaged, mentions_judged).
func (s *Store) TriageExamples(ctx context.Context, projectID string, limit int) (texts []string, relevant []bool, version string, err error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT text, rel, updated_at FROM (
		SELECT * FROM (SELECT text, CASE WHEN status = 'ignored' THEN 0 ELSE 1 END AS rel, updated_at FROM mentions
			WHERE project_id = ? AND status IN ('ignored','reviewed','done') AND own = 0 ORDER BY updated_at DESC LIMIT ?) AS t
		UNION ALL
		SELECT * FROM (SELECT text, is_relevant AS rel, updated_at FROM mentions
			WHERE project_id = ? AND relevance_judged = 1 AND status = 'new' AND own = 0 ORDER BY updated_at DESC LIMIT ?) AS j
		) AS u ORDER BY updated_at DESC LIMIT ?`, projectID, limit, projectID, limit, limit)
	if err != nil {
		return nil, nil, "", err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var text, upd string
		var rel int
		if err := rows.Scan(&text, &rel, &upd); err != nil {
			return nil, nil, "", err
		}
		if n == 0 {
			version = upd
		}
		n++
		texts = append(texts, text)
		relevant = append(relevant, rel != 0)
	}
	return texts, relevant, fmt.Sprintf("%s/%d", version, n), rows.Err()
}

// SOVRow is the count of relevant mentions of one keyword group and one
// sentiment on one day.
type SOVRow struct {
	Day       string
	GroupID   string
	Sentiment string
	Count     int
}

// ShareOfVoice counts relevant mentions per keyword group, sentiment and
// UTC day in [since, until). A mention counts once per group however many
// of the group's monitors matched it.
func (s *Store) ShareOfVoice(ctx context.Context, projectID string, since, until time.Time) ([]SOVRow, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT substr(m.published_at, 1, 10) AS day, mo.group_id, m.sentiment, COUNT(DISTINCT m.id)
		FROM `+s.indexed("mentions", "m", "mentions_feed")+`
		JOIN mention_monitors mm ON mm.mention_id = m.id
		JOIN monitors mo ON mo.id = mm.monitor_id
		WHERE m.project_id = ? AND m.published_at >= ? AND m.published_at < ? AND m.is_relevant = 1 AND mo.group_id IS NOT NULL
		GROUP BY day, mo.group_id, m.sentiment ORDER BY day, mo.group_id`, projectID, FormatTime(since), FormatTime(until))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SOVRow
	for rows.Next() {
		var r SOVRow
		if err := rows.Scan(&r.Day, &r.GroupID, &r.Sentiment, &r.Count); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
