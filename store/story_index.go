package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"earshot/story"
	"github.com/google/uuid"
)

// Stories are assigned at ingest, in the ingest transaction: a new mention
// joins the story of an earlier mention of its project that shares a
// canonical link with it (its own URL or a link in its text) or whose text
// is a near-duplicate of its own (MinHash over character shingles, package
// story). Nothing but the mentions themselves is persisted for lookup: the
// index of recent mentions' keys lives in memory, is rebuilt from the
// mentions table (the same keys, recomputed from url and text) when the
// store first ingests, and holds the mentions collected in the last
// storyWindow, at most storyWindowCap of them. Ingest thus writes no extra
// row for a post that joins no story, which keeps the pipeline's
// throughput; a story gathers posts within a week of each other.
const storyWindow = 7 * 24 * time.Hour

var storyWindowCap = 50_000 // a variable for tests

// storyKeys are a mention's lookup keys, all hashing done before the
// batch reaches the single writer (SubmitIngest runs in the caller's
// goroutine), which only looks them up and files them.
type storyKeys struct {
	scope    uint64   // story.Hash(project id)
	links    []string // canonical
	extra    []string // canonical NewMention.Links, kept with the mention for rebuilds
	linkKeys []uint64 // story.LinkKey of each link
	hasSig   bool
	sig      story.Sig
	bands    [story.Bands]uint64 // the signature's band keys
}

// keysOf computes a post's keys. A review's own URL is left out: review
// sites give every review of a page that page's address (a review is one
// customer's opinion, not a story), while links in its text still count.
func keysOf(projectID, source, url, text string, extra []string) storyKeys {
	if source == "reviews" {
		url = ""
	}
	k := storyKeys{scope: story.Hash(projectID), links: story.MentionLinks(url, text, extra...)}
	for _, l := range extra {
		if c, ok := story.Canonical(l); ok && !slices.Contains(k.extra, c) {
			k.extra = append(k.extra, c)
		}
	}
	k.linkKeys = make([]uint64, len(k.links))
	for i, l := range k.links {
		k.linkKeys[i] = story.LinkKey(k.scope, l)
	}
	if k.sig, k.hasSig = story.Fingerprint(text); k.hasSig {
		for b := range story.Bands {
			k.bands[b] = k.sig.Band(k.scope, b)
		}
	}
	return k
}

func batchKeys(projectID string, batch []NewMention) []storyKeys {
	keys := make([]storyKeys, len(batch))
	for i := range batch {
		keys[i] = keysOf(projectID, batch[i].Source, batch[i].URL, batch[i].Text, batch[i].Links)
	}
	return keys
}

// maxSlotLinks bounds the links a mention is filed under (its own URL
// and the first links of its text), so a slot holds no pointer and the
// garbage collector never scans the index.
const maxSlotLinks = 4

// storySlot is one recent mention in the index.
type storySlot struct {
	rowid     int64
	scope     uint64    // story.Hash(project id)
	collected int64     // unix seconds
	story     uuid.UUID // its story; zero while the mention is alone
	nLinks    int
	linkKeys  [maxSlotLinks]uint64
	hasSig    bool
	sig       story.Sig
	bands     [story.Bands]uint64 // band keys, kept so eviction need not recompute them
}

// storyIndex maps lookup keys (link keys and LSH band keys, both scoped to
// a project) to the newest recent mention filed under them. Slots form a
// queue in ingest order (a ring buffer that grows up to storyWindowCap),
// oldest evicted first, addressed by a sequence number (uint32: it may
// wrap, only differences are used); a key is removed with the slot it
// points to. About 400 bytes per mention, 20 MB at the cap. The writer
// goroutine is its only user; the mutex guards against a second writer.
type storyIndex struct {
	mu    sync.Mutex
	ready bool
	top   int64 // the highest mention rowid filed (or read past)
	buf   []storySlot
	head  int    // buf index of the oldest slot
	n     int    // slots in use
	base  uint32 // sequence number of the oldest slot
	keys  map[uint64]uint32
}

// invalidate drops the index (after a rolled-back transaction whose
// assignments it may hold); the next ingest rebuilds it.
func (ix *storyIndex) invalidate() {
	ix.mu.Lock()
	ix.ready = false
	ix.reset()
	ix.mu.Unlock()
}

func (ix *storyIndex) reset() {
	ix.buf, ix.head, ix.n, ix.base, ix.keys, ix.top = nil, 0, 0, 0, map[uint64]uint32{}, 0
}

// eachKey calls fn with every key a slot is filed under.
func (sl *storySlot) eachKey(fn func(uint64)) {
	for _, k := range sl.linkKeys[:sl.nLinks] {
		fn(k)
	}
	if sl.hasSig {
		for _, k := range sl.bands {
			fn(k)
		}
	}
}

func (ix *storyIndex) evictOldest() {
	seq := ix.base
	old := &ix.buf[ix.head]
	old.eachKey(func(k uint64) {
		if ix.keys[k] == seq {
			delete(ix.keys, k)
		}
	})
	*old = storySlot{}
	ix.head = (ix.head + 1) % len(ix.buf)
	ix.n--
	ix.base++
}

// add files a mention under its keys, evicting what left the window.
func (ix *storyIndex) add(sl storySlot) {
	for ix.n > 0 && (ix.n >= storyWindowCap || ix.buf[ix.head].collected < sl.collected-int64(storyWindow/time.Second)) {
		ix.evictOldest()
	}
	if ix.n == len(ix.buf) { // grow, keeping the order
		nb := make([]storySlot, min(max(2*len(ix.buf), 1024), storyWindowCap))
		for i := range ix.n {
			nb[i] = ix.buf[(ix.head+i)%len(ix.buf)]
		}
		ix.buf, ix.head = nb, 0
	}
	seq := ix.base + uint32(ix.n)
	ix.buf[(ix.head+ix.n)%len(ix.buf)] = sl
	ix.n++
	sl.eachKey(func(k uint64) { ix.keys[k] = seq })
}

func (ix *storyIndex) slot(seq uint32) *storySlot {
	i := ix.head + int(seq-ix.base)
	if i >= len(ix.buf) {
		i -= len(ix.buf)
	}
	return &ix.buf[i]
}

// match returns the slot of an earlier mention the new one belongs with:
// a shared link first (in the order of the mention's links), else the
// first band whose mention is a verified near-duplicate.
func (ix *storyIndex) match(k *storyKeys) (*storySlot, string) {
	scope := k.scope
	for i, lk := range k.linkKeys {
		if seq, ok := ix.keys[lk]; ok && ix.slot(seq).scope == scope {
			return ix.slot(seq), k.links[i]
		}
	}
	if k.hasSig {
		for b := range story.Bands {
			seq, ok := ix.keys[k.bands[b]]
			if !ok {
				continue
			}
			if sl := ix.slot(seq); sl.scope == scope && sl.hasSig && story.Similar(&sl.sig, &k.sig) {
				return sl, ""
			}
		}
	}
	return nil, ""
}

// WarmStories builds the index of recent mentions now (serve calls it at
// start, so the first scan's ingest does not wait for it; a benchmark
// calls it before measuring). It takes the writer for as long as the
// rebuild lasts: about a second per 50,000 mentions of the window here.
func (s *Store) WarmStories(ctx context.Context) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return s.storyBegin(ctx, tx) })
}

// storyBegin makes the index ready inside a write transaction. A ready
// index first catches up with mentions stored since it last looked by
// another process sharing the database (PostgreSQL; on SQLite the query
// finds none): write transactions are serialised across processes, so
// rowids above the index's top are exactly those, committed in rowid
// order, and each process's index sees every mention of the window.
func (s *Store) storyBegin(ctx context.Context, tx *sql.Tx) error {
	ix := &s.stories
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.ready {
		err := s.fileStories(ctx, tx, ix.top)
		if err != nil {
			ix.ready = false
			ix.reset()
		}
		return err
	}
	ix.reset()
	if err := s.rebuildStories(ctx, tx); err != nil {
		ix.ready = false
		return err
	}
	ix.ready = true
	return nil
}

// rebuildStories refills the index from the window's mentions, oldest
// first, as ingest filed them; a mention of the window that has no story
// yet is looked up as ingest would have (so a database upgraded to
// stories groups its last week, and a restart changes nothing).
func (s *Store) rebuildStories(ctx context.Context, tx *sql.Tx) error {
	var top sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(rowid) FROM mentions`).Scan(&top); err != nil {
		return err
	}
	if !top.Valid {
		return nil
	}
	return s.fileStories(ctx, tx, top.Int64-int64(storyWindowCap))
}

// fileStories files the window's mentions above rowid from in the index,
// oldest first (rebuildStories, and catching up in storyBegin).
func (s *Store) fileStories(ctx context.Context, tx *sql.Tx, from int64) error {
	since := FormatTime(time.Now().Add(-storyWindow))
	type row struct {
		rowid                                     int64
		id, project, url, text, collected, source string
		published, summary                        string
		storyID, extra                            sql.NullString
	}
	ix := &s.stories
	for {
		rows, err := tx.QueryContext(ctx, `SELECT rowid, id, project_id, url, text, collected_at, source, published_at, ai_summary, story_id, extra_links
			FROM mentions WHERE rowid > ? ORDER BY rowid LIMIT 2000`, from)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.rowid, &r.id, &r.project, &r.url, &r.text, &r.collected, &r.source, &r.published, &r.summary, &r.storyID, &r.extra); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		for _, r := range batch {
			from = r.rowid
			ix.top = max(ix.top, r.rowid)
			if r.collected < since {
				continue
			}
			m := &Mention{ID: r.id, ProjectID: r.project, Source: r.source, PublishedAt: r.published, CollectedAt: r.collected, AISummary: r.summary, Text: r.text}
			if r.storyID.Valid {
				sid := r.storyID.String
				m.StoryID = &sid
			}
			var extra []string // stored canonical (scheme-less): canonical again
			for _, l := range strList(r.extra.String) {
				extra = append(extra, "https://"+l)
			}
			k := keysOf(r.project, r.source, r.url, r.text, extra)
			k.extra = nil // stored already
			if err := s.assignStory(ctx, tx, m, r.rowid, &k); err != nil {
				return err
			}
		}
	}
}

// assignStory files a stored mention in the index and, when an earlier
// mention of its project tells the same story, puts both in one story
// (creating it, or adding to the earlier mention's). m gets its story id
// and count. ix.mu is held by the caller or unneeded (writer only).
func (s *Store) assignStory(ctx context.Context, tx *sql.Tx, m *Mention, rowid int64, k *storyKeys) error {
	ix := &s.stories
	collected, err := ParseTime(m.CollectedAt)
	if err != nil {
		return err
	}
	ix.top = max(ix.top, rowid)
	sl := storySlot{rowid: rowid, scope: k.scope, collected: collected.Unix(), hasSig: k.hasSig, sig: k.sig, bands: k.bands}
	sl.nLinks = copy(sl.linkKeys[:], k.linkKeys)
	if m.StoryID != nil { // rebuilding: already grouped
		sl.story, _ = uuid.Parse(*m.StoryID)
		ix.add(sl)
		return nil
	}
	if len(k.extra) > 0 { // kept for rebuilds (rebuildStories clears it)
		if _, err := tx.ExecContext(ctx, `UPDATE mentions SET extra_links = ? WHERE rowid = ?`, toJSON(k.extra), rowid); err != nil {
			return err
		}
	}
	m.StoryCount, m.StorySources = 1, map[string]int{m.Source: 1}
	if prev, link := ix.match(k); prev != nil {
		sid, count, sources, err := s.joinStory(ctx, tx, prev, m, rowid, link)
		if err != nil {
			return err
		}
		if sid != "" {
			sl.story = uuid.MustParse(sid)
			m.StoryID, m.StoryCount, m.StorySources = &sid, count, sources
		}
	}
	ix.add(sl)
	return nil
}

// joinStory puts m in prev's story, creating the story when prev was
// alone. It returns the story id, its new count and sources ("" when
// prev's mention is gone).
func (s *Store) joinStory(ctx context.Context, tx *sql.Tx, prev *storySlot, m *Mention, rowid int64, link string) (string, int, map[string]int, error) {
	ts := now()
	if prev.story == (uuid.UUID{}) {
		var first Mention
		var joined sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT id, source, published_at, ai_summary, text, story_id FROM mentions WHERE rowid = ? AND project_id = ?`,
			prev.rowid, m.ProjectID).Scan(&first.ID, &first.Source, &first.PublishedAt, &first.AISummary, &first.Text, &joined)
		if errors.Is(err, sql.ErrNoRows) {
			return "", 0, nil, nil
		}
		if err != nil {
			return "", 0, nil, err
		}
		if id, err := uuid.Parse(joined.String); joined.Valid && err == nil {
			// Another process (sharing a PostgreSQL database) put the
			// earlier mention in a story since this index filed it alone:
			// join that story.
			prev.story = id
			return s.joinStory(ctx, tx, prev, m, rowid, link)
		}
		sid := uuid.Must(uuid.NewV7()).String()
		latest, firstSeen, lastSeen := first.ID, first.PublishedAt, first.PublishedAt
		if newer(m.PublishedAt, m.ID, first.PublishedAt, first.ID) {
			latest, lastSeen = m.ID, m.PublishedAt
		} else {
			firstSeen = m.PublishedAt
		}
		sources := map[string]int{first.Source: 1}
		sources[m.Source]++
		if _, err := tx.ExecContext(ctx, `INSERT INTO stories(id, project_id, title, link, first_mention_id, latest_mention_id, mention_count, sources,
			first_seen, last_seen, created_at, updated_at) VALUES (?,?,?,?,?,?,2,?,?,?,?,?)`,
			sid, m.ProjectID, storyTitle(&first), link, first.ID, latest, toJSON(sources), firstSeen, lastSeen, ts, ts); err != nil {
			return "", 0, nil, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE mentions SET story_id = ? WHERE rowid IN (?, ?)`, sid, prev.rowid, rowid); err != nil {
			return "", 0, nil, err
		}
		prev.story = uuid.MustParse(sid)
		return sid, 2, sources, nil
	}
	sid := prev.story.String()
	var count int
	var sources string
	// sources is a JSON object of counts kept as text: json_set on SQLite,
	// jsonb_set on PostgreSQL (which writes it back in jsonb's spelling,
	// read the same by scanStory).
	bump := `json_set(sources, '$.' || ?1, COALESCE(json_extract(sources, '$.' || ?1), 0) + 1)`
	latest, earliest := `max`, `min`
	if s.pg {
		bump = `CAST(jsonb_set(CAST(sources AS jsonb), ARRAY[CAST(?1 AS text)],
			to_jsonb(COALESCE((CAST(sources AS jsonb) ->> CAST(?1 AS text))::bigint, 0) + 1)) AS text)`
		latest, earliest = `GREATEST`, `LEAST`
	}
	err := tx.QueryRowContext(ctx, `UPDATE stories SET mention_count = mention_count + 1,
			sources = `+bump+`,
			latest_mention_id = CASE WHEN (?2, ?3) > (last_seen, latest_mention_id) THEN ?3 ELSE latest_mention_id END,
			last_seen = `+latest+`(last_seen, ?2), first_seen = `+earliest+`(first_seen, ?2),
			link = CASE WHEN link = '' THEN ?4 ELSE link END, updated_at = ?5
		WHERE id = ?6 RETURNING mention_count, sources`, m.Source, m.PublishedAt, m.ID, link, ts, sid).Scan(&count, &sources)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, nil, nil
	}
	if err != nil {
		return "", 0, nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE mentions SET story_id = ? WHERE rowid = ?`, sid, rowid); err != nil {
		return "", 0, nil, err
	}
	src := map[string]int{}
	if err := json.Unmarshal([]byte(sources), &src); err != nil {
		return "", 0, nil, fmt.Errorf("story %s sources: %w", sid, err)
	}
	return sid, count, src, nil
}

// newer reports whether (at, id) comes after (at2, id2) in list order.
func newer(at, id, at2, id2 string) bool {
	return at > at2 || (at == at2 && id > id2)
}

// storyTitle is a story's title: its first mention's summary, or the
// start of its text when there is no summary.
func storyTitle(m *Mention) string {
	if m.AISummary != "" {
		return m.AISummary
	}
	r := []rune(m.Text)
	if len(r) > 140 {
		return string(r[:139]) + "…"
	}
	return m.Text
}
