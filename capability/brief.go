package capability

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"earshot/api"
	"earshot/store"
	"earshot/vocab"
)

// The brief answers what an agent is asked most ("what happened with our
// brand this week?", "what needs a reply?") in one call sized for a
// model's context, where it took a dozen list calls: counts and the
// sentiment shift against the previous period, where the mentions came
// from, the spikes with their top mentions, the stories, and the urgent
// mentions nobody has handled.

type BriefIn struct {
	DatePreset  string `json:"date_preset,omitempty" in:"query" validate:"enum=@bounded_date_presets" default:"last_7_days" doc:"The period; last_7_days when neither it nor since is given."`
	Since       string `json:"since,omitempty" in:"query" validate:"format=date-time" doc:"Period start (overrides date_preset)."`
	Until       string `json:"until,omitempty" in:"query" validate:"format=date-time" doc:"Period end (default now)."`
	MonitorID   string `json:"monitor_id,omitempty" in:"query" validate:"format=uuid" doc:"Only this monitor's mentions."`
	UrgentLimit *int   `json:"urgent_limit,omitempty" in:"query" validate:"min=0,max=25" default:"10" doc:"How many urgent unhandled mentions to include."`
}

// BriefCounts are relevant mentions by sentiment.
type BriefCounts struct {
	Total    int `json:"total"`
	Positive int `json:"positive"`
	Neutral  int `json:"neutral"`
	Negative int `json:"negative"`
}

// NameCount is one row of a breakdown.
type NameCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// BriefMention is a mention cut to what a reader needs to judge it.
type BriefMention struct {
	ID           string `json:"id"`
	Source       string `json:"source"`
	URL          string `json:"url"`
	AuthorHandle string `json:"author_handle"`
	PublishedAt  string `json:"published_at"`
	Category     string `json:"category"`
	Sentiment    string `json:"sentiment"`
	Urgency      int    `json:"urgency"`
	Status       string `json:"status"`
	Summary      string `json:"summary" doc:"The classifier's one-line summary."`
	Text         string `json:"text" doc:"The post's text, cut at 280 characters (get_mention has it whole)."`
}

// BriefSpike is a spike with its most urgent mentions.
type BriefSpike struct {
	ID          string         `json:"id"`
	Kind        string         `json:"kind"`
	MonitorID   *string        `json:"monitor_id"`
	BucketStart string         `json:"bucket_start"`
	Count       int            `json:"count"`
	Baseline    float64        `json:"baseline"`
	TopMentions []BriefMention `json:"top_mentions" doc:"Up to 3 mentions behind the spike, most urgent first."`
}

// BriefStory is a story active in the period.
type BriefStory struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Link         *string        `json:"link"`
	MentionCount int            `json:"mention_count"`
	Sources      map[string]int `json:"sources"`
	LastSeen     string         `json:"last_seen"`
}

type BriefOut struct {
	Since          string         `json:"since"`
	Until          string         `json:"until"`
	PreviousSince  string         `json:"previous_since" doc:"Start of the previous period of the same length, which previous counts."`
	Mentions       BriefCounts    `json:"mentions" doc:"Relevant mentions published in the period, by sentiment."`
	Previous       BriefCounts    `json:"previous" doc:"The same for the previous period."`
	VolumeChange   *float64       `json:"volume_change" doc:"Relative change of the total against the previous period (0.25 = 25% more); null when the previous period had none."`
	NegativeShare  float64        `json:"negative_share" doc:"Negative mentions / all, in the period (0-1)."`
	PreviousShare  float64        `json:"previous_negative_share" doc:"The same for the previous period."`
	SentimentShift string         `json:"sentiment_shift" doc:"The shift in one sentence."`
	BySource       []NameCount    `json:"by_source" doc:"Relevant mentions per source, most first."`
	ByCategory     []NameCount    `json:"by_category" doc:"Relevant mentions per category, most first."`
	NotRelevant    int            `json:"not_relevant" doc:"Mentions judged not about the brand (or own posts), left out of every count above; at most 10000."`
	Spikes         []BriefSpike   `json:"spikes" doc:"Up to 5 spikes in the period, newest first."`
	Stories        []BriefStory   `json:"stories" doc:"Up to 5 stories active in the period, most recently active first."`
	UrgentOpen     int            `json:"urgent_unhandled" doc:"Relevant mentions of the period with urgency at or above the threshold and status new (at most 1000)."`
	Urgent         []BriefMention `json:"urgent" doc:"The most urgent of them, up to urgent_limit."`
}

const (
	briefSpikes     = 5
	briefSpikeTop   = 3
	briefStories    = 5
	briefTextRunes  = 280
	briefCountLimit = 10000
)

func (s *Service) briefCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "get_brief", Title: "Brief for a period", Group: "brief", Method: "GET", Path: "/api/v1/brief",
			Scope: MentionsRead, Idempotent: true,
			Description: "Everything about the brand in a period, in one call sized for a model's context: relevant mentions by sentiment against the previous period " +
				"(volume change and sentiment shift), counts per source and category, spikes with their top mentions, active stories, and the urgent mentions still new " +
				"(urgency " + itoa(vocab.UrgentThreshold) + "+), most urgent first. Start here for \"what happened this week?\" or \"what needs a reply?\"; then use get_mention, " +
				"list_mentions or update_mention_status on what it shows."},
			s.brief),
	}
}

func (s *Service) brief(ctx context.Context, p *Principal, in *BriefIn) (*BriefOut, error) {
	since, until, err := s.briefWindow(in)
	if err != nil {
		return nil, err
	}
	relevant := true
	f, err := s.filter(ctx, p, MentionQuery{MentionFilters: MentionFilters{MonitorID: in.MonitorID, IsRelevant: &relevant}})
	if err != nil {
		return nil, err
	}
	prevSince := since.Add(-until.Sub(since))
	out := &BriefOut{Since: store.FormatTime(since), Until: store.FormatTime(until), PreviousSince: store.FormatTime(prevSince)}
	counts, err := s.Store.MentionCounts(ctx, f, []time.Time{prevSince, since, until})
	if err != nil {
		return nil, err
	}
	out.Previous, out.Mentions = briefCounts(counts[0]), briefCounts(counts[1])
	out.describeShift()
	bd, err := s.Store.MentionBreakdown(ctx, f, since, until)
	if err != nil {
		return nil, err
	}
	out.BySource, out.ByCategory = sortedCounts(bd.BySource), sortedCounts(bd.ByCategory)
	notRelevant := false
	nf := f
	nf.IsRelevant, nf.Since, nf.Until = &notRelevant, &since, &until
	if out.NotRelevant, err = s.Store.CountMentions(ctx, nf, briefCountLimit); err != nil {
		return nil, err
	}
	if out.Spikes, err = s.briefSpikes(ctx, p, in.MonitorID, since, until); err != nil {
		return nil, err
	}
	if out.Stories, err = s.briefStories(ctx, p, since); err != nil {
		return nil, err
	}
	uf := f
	urgent := vocab.UrgentThreshold
	uf.Status, uf.MinUrgency, uf.Since, uf.Until, uf.ByUrgency = "new", &urgent, &since, &until, true
	if out.UrgentOpen, err = s.Store.CountMentions(ctx, uf, 1000); err != nil {
		return nil, err
	}
	out.Urgent = []BriefMention{}
	if n := *in.UrgentLimit; n > 0 {
		items, err := s.Store.ListMentions(ctx, uf, nil, n)
		if err != nil {
			return nil, err
		}
		for _, m := range store.MentionRecords(items) {
			out.Urgent = append(out.Urgent, briefMention(m))
		}
	}
	return out, nil
}

// briefWindow is the period: since (or the preset's start) to until (or now).
func (s *Service) briefWindow(in *BriefIn) (time.Time, time.Time, error) {
	until := s.now()
	if in.Until != "" {
		until, _ = ParseTimeParam(in.Until)
	}
	since, _ := store.PresetSince(in.DatePreset, until)
	if in.Since != "" {
		since, _ = ParseTimeParam(in.Since)
	}
	if !since.Before(until) {
		return since, until, Invalid("until", "until must be after since")
	}
	if until.Sub(since) > maxDayWindow {
		return since, until, Invalid("since", "a brief covers at most 366 days")
	}
	return since.UTC(), until.UTC(), nil
}

func briefCounts(c store.SentimentCounts) BriefCounts {
	return BriefCounts{Total: c.Total, Positive: c.Positive, Neutral: c.Neutral, Negative: c.Negative}
}

// describeShift fills the volume change, negative shares and the sentence.
func (o *BriefOut) describeShift() {
	share := func(c BriefCounts) float64 {
		if c.Total == 0 {
			return 0
		}
		return math.Round(float64(c.Negative)/float64(c.Total)*1000) / 1000
	}
	o.NegativeShare, o.PreviousShare = share(o.Mentions), share(o.Previous)
	if o.Previous.Total > 0 {
		v := math.Round(float64(o.Mentions.Total-o.Previous.Total)/float64(o.Previous.Total)*1000) / 1000
		o.VolumeChange = &v
	}
	points := math.Round((o.NegativeShare - o.PreviousShare) * 100)
	switch {
	case o.Mentions.Total == 0:
		o.SentimentShift = "No relevant mentions in the period."
	case o.Previous.Total == 0:
		o.SentimentShift = fmt.Sprintf("%.0f%% negative; no mentions in the previous period to compare with.", o.NegativeShare*100)
	case points >= 5:
		o.SentimentShift = fmt.Sprintf("More negative: %.0f%% negative, up %.0f points from %.0f%%.", o.NegativeShare*100, points, o.PreviousShare*100)
	case points <= -5:
		o.SentimentShift = fmt.Sprintf("Less negative: %.0f%% negative, down %.0f points from %.0f%%.", o.NegativeShare*100, -points, o.PreviousShare*100)
	default:
		o.SentimentShift = fmt.Sprintf("Steady: %.0f%% negative (%.0f%% before).", o.NegativeShare*100, o.PreviousShare*100)
	}
}

func sortedCounts(m map[string]int) []NameCount {
	out := make([]NameCount, 0, len(m))
	for k, v := range m {
		out = append(out, NameCount{Name: k, Count: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (s *Service) briefSpikes(ctx context.Context, p *Principal, monitorID string, since, until time.Time) ([]BriefSpike, error) {
	sps, err := s.Store.ListSpikes(ctx, store.SpikeFilter{ProjectID: p.ProjectID, MonitorID: monitorID, Since: &since, Until: &until}, nil, briefSpikes)
	if err != nil {
		return nil, err
	}
	out := []BriefSpike{}
	for _, sp := range store.SpikeRecords(sps) {
		b := BriefSpike{ID: sp.ID, Kind: sp.Kind, MonitorID: sp.MonitorID, BucketStart: sp.BucketStart, Count: sp.Count, Baseline: sp.Baseline, TopMentions: []BriefMention{}}
		full, err := s.getSpike(ctx, p, &IDPath{ID: sp.ID})
		if err != nil {
			return nil, err
		}
		for i, m := range full.Mentions {
			if i == briefSpikeTop {
				break
			}
			b.TopMentions = append(b.TopMentions, briefMention(m))
		}
		out = append(out, b)
	}
	return out, nil
}

func (s *Service) briefStories(ctx context.Context, p *Principal, since time.Time) ([]BriefStory, error) {
	items, err := s.Store.ListStories(ctx, store.StoryFilter{ProjectID: p.ProjectID, MinMentions: 2, Since: &since}, nil, briefStories)
	if err != nil {
		return nil, err
	}
	out := []BriefStory{}
	for _, st := range store.StoryRecords(items) {
		out = append(out, BriefStory{ID: st.ID, Title: st.Title, Link: st.Link, MentionCount: st.MentionCount, Sources: st.Sources, LastSeen: st.LastSeen})
	}
	return out, nil
}

func briefMention(m *api.Mention) BriefMention {
	text := []rune(m.Text)
	t := m.Text
	if len(text) > briefTextRunes {
		t = string(text[:briefTextRunes-1]) + "…"
	}
	return BriefMention{ID: m.ID, Source: m.Source, URL: m.URL, AuthorHandle: m.AuthorHandle, PublishedAt: m.PublishedAt,
		Category: m.Category, Sentiment: m.Sentiment, Urgency: m.Urgency, Status: m.Status, Summary: m.AISummary, Text: t}
}
