package collect

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"earshot/classify"
	"earshot/metrics"
	"earshot/store"
)

// The pipeline takes the posts one fetch returned for one monitor and
// source to stored mentions: match the monitor's rule, skip posts the
// project already holds, classify the rest outside any write transaction,
// then store them in batches (the store dedupes, applies the quota and
// records mention.created / usage.quota_reached in the same transaction).

// PipelineConfig tunes the pipeline; zero values take the defaults.
type PipelineConfig struct {
	// QuotaFunc returns a plan's monthly mention quota (0 = unlimited);
	// capability.Service.Quota fits. nil means unlimited.
	QuotaFunc func(plan string) int
	// BatchSize is how many posts one ingest transaction stores (default
	// 500): small enough that the first mentions of a large fetch are
	// stored, and their events recorded, well within a second.
	BatchSize int
	// ClassifyWorkers classify posts in parallel (default GOMAXPROCS).
	ClassifyWorkers int
	// TriageExamples is how many recent triaged mentions train a project's
	// relevance model (default 2000).
	TriageExamples int
	// ProjectTTL is how long a project's context (name, categories, plan,
	// relevance model) is reused before it is read again (default 30s).
	ProjectTTL time.Duration
}

// ScanCounts is what one Process call did with the posts it was given.
type ScanCounts struct {
	Fetched      int // posts given
	Matched      int // posts that matched the monitor (after removing repeats in the batch)
	New          int // mentions stored
	Duplicates   int // matched posts the project already held (their monitor_ids gain this monitor)
	DroppedQuota int // new posts not stored because the quota is used up
	Irrelevant   int // stored mentions classified is_relevant=false
}

func (c *ScanCounts) add(o ScanCounts) {
	c.Fetched += o.Fetched
	c.Matched += o.Matched
	c.New += o.New
	c.Duplicates += o.Duplicates
	c.DroppedQuota += o.DroppedQuota
	c.Irrelevant += o.Irrelevant
}

// Pipeline turns fetched posts into stored mentions. Safe for concurrent use.
type Pipeline struct {
	st       *store.Store
	cls      classify.Classifier
	fallback classify.Classifier
	cfg      PipelineConfig
	log      *slog.Logger
	met      pipelineMetrics

	mu       sync.Mutex
	projects map[string]*projectContext

	// onIngest, when set (tests, benchmarks), sees every ingest batch with
	// the time its posts were handed to Process (res.Committed is when its
	// mentions and events were committed).
	onIngest func(fetchedAt time.Time, res store.IngestResult)
}

type pipelineMetrics struct {
	posts   *metrics.Counter   // stage: fetched, matched, new, duplicate, dropped_quota, irrelevant
	calls   *metrics.Counter   // classifier, outcome
	latency *metrics.Histogram // classifier
	toEvent *metrics.Histogram // source
	queued  *metrics.Histogram
}

// NewPipeline returns a pipeline storing into st, classifying with cls
// (nil: the built-in classifier). m may be nil.
func NewPipeline(st *store.Store, cls classify.Classifier, cfg PipelineConfig, log *slog.Logger, m *metrics.Registry) *Pipeline {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 100
	}
	if cfg.ClassifyWorkers <= 0 {
		cfg.ClassifyWorkers = runtime.GOMAXPROCS(0)
	}
	if cfg.TriageExamples <= 0 {
		cfg.TriageExamples = 2000
	}
	if cfg.ProjectTTL == 0 {
		cfg.ProjectTTL = 30 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	if m == nil {
		m = metrics.New()
	}
	builtin := classify.NewBuiltin()
	if cls == nil {
		cls = builtin
	}
	return &Pipeline{
		st: st, cls: cls, fallback: builtin, cfg: cfg, log: log,
		projects: map[string]*projectContext{},
		met: pipelineMetrics{
			posts:   m.Counter("earshot_collect_posts_total", "Posts through the collection pipeline by source and stage (fetched, matched, new, duplicate, dropped_quota, irrelevant).", "source", "stage"),
			calls:   m.Counter("earshot_classifier_calls_total", "Classifier calls by classifier and outcome (ok; fallback: the built-in classifier answered; error).", "classifier", "outcome"),
			latency: m.Histogram("earshot_classifier_seconds", "Time to classify one post.", metrics.DefaultBuckets, "classifier"),
			toEvent: m.Histogram("earshot_post_to_mention_seconds", "From a post handed to the pipeline to its mention (and mention.created event) committed.", metrics.DefaultBuckets, "source"),
			queued:  m.Histogram("earshot_ingest_queued_seconds", "How long a classified batch waited for the store's writer.", metrics.DefaultBuckets),
		},
	}
}

// projectContext is what classification needs to know about a project.
type projectContext struct {
	loaded     time.Time
	plan       string
	project    classify.Project
	categories []classify.CategoryInfo
	enabled    map[string]bool
	relVersion string
	relevance  *classify.RelevanceModel
	owner      classify.Owner // the project's own accounts and website
}

// projectContext returns the project's context, read again after
// ProjectTTL; the relevance model is retrained only when the triage
// examples changed (TriageExamples' version).
func (p *Pipeline) projectContext(ctx context.Context, projectID string) (*projectContext, error) {
	p.mu.Lock()
	pc := p.projects[projectID]
	p.mu.Unlock()
	if pc != nil && p.cfg.ProjectTTL > 0 && time.Since(pc.loaded) < p.cfg.ProjectTTL {
		return pc, nil
	}
	pr, err := p.st.Project(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("loading project %s: %w", projectID, err)
	}
	cats, err := p.st.ListCategories(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("loading categories of %s: %w", projectID, err)
	}
	texts, relevant, version, err := p.st.TriageExamples(ctx, projectID, p.cfg.TriageExamples)
	if err != nil {
		return nil, fmt.Errorf("loading triage examples of %s: %w", projectID, err)
	}
	next := &projectContext{loaded: time.Now(), plan: pr.Plan, enabled: map[string]bool{}}
	next.project = classify.Project{Name: pr.Name, Description: pr.Description}
	if pr.Website != nil {
		next.project.Website = *pr.Website
	}
	if err := p.loadBrand(ctx, projectID, next); err != nil {
		return nil, err
	}
	for _, c := range cats {
		next.categories = append(next.categories, classify.CategoryInfo{Category: c.Category, Label: c.Label, Description: c.Description, Enabled: c.Enabled})
		next.enabled[c.Category] = c.Enabled
	}
	if pc != nil && pc.relVersion == version {
		next.relVersion, next.relevance = pc.relVersion, pc.relevance
	} else if len(texts) > 0 {
		ex := make([]classify.Example, len(texts))
		for i := range texts {
			ex[i] = classify.Example{Text: texts[i], Relevant: relevant[i]}
		}
		next.relVersion, next.relevance = version, classify.TrainRelevance(ex)
	} else {
		next.relVersion = version
	}
	p.mu.Lock()
	p.projects[projectID] = next
	p.mu.Unlock()
	return next, nil
}

// monitorMatcher decides which posts of a source are the monitor's.
type monitorMatcher struct {
	rule     *Matcher
	excludes *Matcher
	takeAll  bool
}

// newMonitorMatcher compiles the monitor's rule for source. Review pages
// are watched like accounts: every review on a page in review_urls is
// taken. So are the feeds of a monitor without keywords (the news source
// then reads feed_urls only). Excludes always apply.
func newMonitorMatcher(m *store.Monitor, source string) *monitorMatcher {
	mm := &monitorMatcher{rule: Compile(Rule{Keywords: m.Keywords, ExcludeKeywords: m.ExcludeKeywords, QueryMode: m.QueryMode, WatchAccounts: m.WatchAccounts})}
	switch {
	case source == "reviews":
		mm.takeAll = true
	case source == "news" && len(m.Keywords) == 0:
		mm.takeAll = true
	}
	if mm.takeAll && len(m.ExcludeKeywords) > 0 {
		mm.excludes = Compile(Rule{Keywords: m.ExcludeKeywords, QueryMode: "any"})
	}
	return mm
}

func (mm *monitorMatcher) match(p Post) bool {
	if mm.takeAll {
		return mm.excludes == nil || !mm.excludes.Match(p)
	}
	return mm.rule.Match(p)
}

// Process runs posts fetched from source for monitor m through the
// pipeline and returns what happened to them. On error, the counts say
// what was stored before it.
func (p *Pipeline) Process(ctx context.Context, m *store.Monitor, source string, posts []Post) (ScanCounts, error) {
	fetchedAt := time.Now()
	counts := ScanCounts{Fetched: len(posts)}
	p.met.posts.Add(float64(len(posts)), source, "fetched")
	if len(posts) == 0 {
		return counts, nil
	}
	mm := newMonitorMatcher(m, source)
	matched := make([]Post, 0, len(posts))
	seen := make(map[string]bool, len(posts))
	for _, post := range posts {
		post = cleanPost(post)
		if post.ExternalID == "" || seen[post.ExternalID] || !mm.match(post) {
			continue
		}
		seen[post.ExternalID] = true
		if post.Source == "" {
			post.Source = source
		}
		matched = append(matched, post)
	}
	counts.Matched = len(matched)
	p.met.posts.Add(float64(len(matched)), source, "matched")
	if len(matched) == 0 {
		return counts, nil
	}
	ids := make([]string, len(matched))
	for i, post := range matched {
		ids[i] = post.ExternalID
	}
	known, err := p.st.KnownMentionMonitors(ctx, m.ProjectID, source, ids)
	if err != nil {
		return counts, fmt.Errorf("looking up known posts: %w", err)
	}
	pc, err := p.projectContext(ctx, m.ProjectID)
	if err != nil {
		return counts, err
	}
	quota := 0
	if p.cfg.QuotaFunc != nil {
		quota = p.cfg.QuotaFunc(pc.plan)
	}

	// Known posts need no classification. One this monitor already has is
	// a plain duplicate (a re-fetch: no write at all); for the others the
	// store only adds this monitor to monitor_ids, with the first batch.
	var first []store.NewMention
	fresh := make([]Post, 0, len(matched))
	for _, post := range matched {
		if mids, ok := known[post.ExternalID]; ok && slices.Contains(mids, m.ID) {
			counts.Duplicates++
			p.met.posts.Inc(source, "duplicate")
		} else if ok {
			first = append(first, store.NewMention{Source: source, ExternalID: post.ExternalID, URL: post.URL, AuthorHandle: post.AuthorHandle,
				Text: post.Text, PublishedAt: post.PublishedAt, Engagement: post.Engagement, MonitorIDs: []string{m.ID}, Category: "other", Sentiment: "neutral",
				Links: post.Links})
		} else {
			fresh = append(fresh, post)
		}
	}

	if len(fresh) == 0 && len(first) == 0 {
		return counts, nil
	}

	// Each classified batch is queued for the store's writer at once (it
	// groups them with other scans' batches) and the next is classified
	// while it is stored; the results are collected at the end, in order.
	// The submit context is not cancelled when this scan stops early: a
	// batch already queued is stored and counted.
	var waits []func() (store.IngestResult, error)
	var errs error
	for start := 0; start < len(fresh) || (start == 0 && len(first) > 0); start += p.cfg.BatchSize {
		nms, err := p.classifyAll(ctx, m, source, pc, fresh[start:min(len(fresh), start+p.cfg.BatchSize)])
		if err != nil {
			errs = err
			break
		}
		if start == 0 {
			nms = append(first, nms...)
		}
		waits = append(waits, p.st.SubmitIngest(context.WithoutCancel(ctx), m.ProjectID, quota, nms))
	}
	for _, wait := range waits {
		res, err := wait()
		if err != nil {
			errs = cmpErr(errs, fmt.Errorf("storing mentions: %w", err))
			continue
		}
		if p.onIngest != nil {
			p.onIngest(fetchedAt, res)
		}
		if res.QuotaNotified {
			// Once per project and period (the store's flag): posts are
			// being dropped, and an operator reading only the log must
			// learn it. usage.quota_reached went out with this batch.
			p.log.Warn("mention quota reached: new posts are dropped until the period ends or the plan changes (earshot project set-plan)",
				"project_id", m.ProjectID, "plan", pc.plan, "quota", quota, "period_start", res.Period, "dropped", res.Dropped)
		}
		var bc ScanCounts
		bc.New, bc.Duplicates, bc.DroppedQuota = res.New, res.Duplicates, res.Dropped
		for _, cm := range res.Created {
			if !cm.IsRelevant {
				bc.Irrelevant++
			}
		}
		p.met.queued.Observe(res.Queued.Seconds())
		if res.New > 0 {
			p.met.toEvent.Observe(res.Committed.Sub(fetchedAt).Seconds(), source)
		}
		p.met.posts.Add(float64(bc.New), source, "new")
		p.met.posts.Add(float64(bc.Duplicates), source, "duplicate")
		p.met.posts.Add(float64(bc.DroppedQuota), source, "dropped_quota")
		p.met.posts.Add(float64(bc.Irrelevant), source, "irrelevant")
		counts.add(bc)
	}
	return counts, errs
}

// classifyAll classifies posts with up to ClassifyWorkers in parallel,
// keeping their order.
func (p *Pipeline) classifyAll(ctx context.Context, m *store.Monitor, source string, pc *projectContext, posts []Post) ([]store.NewMention, error) {
	out := make([]store.NewMention, len(posts))
	workers := min(p.cfg.ClassifyWorkers, len(posts))
	if workers <= 1 {
		for i := range posts {
			nm, err := p.classifyOne(ctx, m, source, pc, posts[i])
			if err != nil {
				return nil, err
			}
			out[i] = nm
		}
		return out, nil
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				nm, err := p.classifyOne(ctx, m, source, pc, posts[i])
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					continue
				}
				out[i] = nm
			}
		})
	}
feed:
	for i := range posts {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func cmpErr(have, err error) error {
	if have != nil {
		return have
	}
	return err
}

// classifyOne classifies one post. A failing classifier (other than by
// cancellation) is replaced by the built-in one for this post, so a broken
// model server never loses a mention.
func (p *Pipeline) classifyOne(ctx context.Context, m *store.Monitor, source string, pc *projectContext, post Post) (store.NewMention, error) {
	in := classify.Input{
		Text: post.Text, Source: source, Keywords: m.Keywords, Project: pc.project,
		Engagement: post.Engagement, AuthorFollowers: post.AuthorFollowers,
		Categories: pc.categories, Relevance: pc.relevance,
	}
	start := time.Now()
	res, err := safeClassify(ctx, p.cls, in)
	name := p.cls.Name()
	p.met.latency.Since(start, name)
	if err != nil {
		p.met.calls.Inc(name, "error")
		if ctx.Err() != nil {
			return store.NewMention{}, ctx.Err()
		}
		p.log.Warn("classifier failed; using the built-in one", "classifier", name, "source", source, "external_id", post.ExternalID, "err", err)
		res, err = safeClassify(ctx, p.fallback, in)
		if err != nil {
			if ctx.Err() != nil {
				return store.NewMention{}, ctx.Err()
			}
			// Not even the built-in rules could read it: keep the post,
			// unclassified, rather than lose it or retry it forever.
			p.log.Error("built-in classifier failed; storing the post unclassified", "source", source, "external_id", post.ExternalID, "err", err)
			res = classify.Result{Category: "other", Sentiment: "neutral", Summary: classify.Summarize(post.Text, m.Keywords),
				IsRelevant: true, Classifier: "none"}
		} else {
			res.Classifier = classify.FallbackName
		}
	} else if res.Classifier == classify.FallbackName {
		// Ollama failed and answered with the built-in rules itself.
		p.met.calls.Inc(name, "fallback")
		p.log.Warn("classifier failed; the built-in one answered", "classifier", name, "source", source, "external_id", post.ExternalID, "reason", classify.FallbackReason(res))
	} else {
		p.met.calls.Inc(name, "ok")
	}
	if enabled, ok := pc.enabled[res.Category]; res.Category == "" || (ok && !enabled) || (!ok && len(pc.enabled) > 0) {
		// A disabled (or unknown) category is filed as other
		// (docs/decisions.md#monitors).
		res.Category = "other"
	}
	// The brand's own posts are kept but are not mentions to triage: not
	// relevant, so no mention.created, no alert, not on the public page.
	own, why := pc.owner.OwnPost(source, post.AuthorHandle, post.URL)
	if own {
		res.IsRelevant, res.RelevanceReason = false, why
	}
	return store.NewMention{
		Source: source, ExternalID: post.ExternalID, URL: post.URL, AuthorHandle: post.AuthorHandle, Text: post.Text,
		PublishedAt: post.PublishedAt, Engagement: post.Engagement, MonitorIDs: []string{m.ID},
		IsRelevant: res.IsRelevant, Category: res.Category, Sentiment: res.Sentiment, Urgency: res.Urgency,
		AISummary: res.Summary, Classifier: res.Classifier, CostUSD: res.CostUSD,
		CategoryReason: res.CategoryReason, UrgencyReason: res.UrgencyReason, RelevanceReason: res.RelevanceReason, Own: own,
		Links: post.Links,
	}, nil
}

// safeClassify runs a classifier and turns a panic into an error: one odd
// post must not stop the process (classification runs in worker goroutines).
func safeClassify(ctx context.Context, c classify.Classifier, in classify.Input) (res classify.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("classifier %s panicked: %v", c.Name(), r)
		}
	}()
	return c.Classify(ctx, in)
}

// cleanPost is post as the store keeps it, before it is matched or looked
// up: no NUL or invalid UTF-8 in its strings (PostgreSQL refuses both, and
// one such post failed its whole batch, so the source fetched the same
// window again forever) and a url and links that are http(s) or nothing.
func cleanPost(post Post) Post {
	for _, s := range []*string{&post.Source, &post.ExternalID, &post.AuthorHandle, &post.AuthorID, &post.Text} {
		*s = store.CleanText(*s)
	}
	post.URL = store.WebURL(post.URL)
	links := post.Links[:0:0]
	for _, l := range post.Links {
		if w := store.WebURL(l); w != "" {
			links = append(links, w)
		}
	}
	post.Links = links
	return post
}
