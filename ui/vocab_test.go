package ui

import (
	"log/slog"
	"slices"
	"testing"

	"earshot/capability"
	"earshot/store"
	"earshot/store/storetest"
	"earshot/vocab"
)

// The inbox's filter choices are the vocabulary's lists, and every value
// the dashboard shows has a label: a new category, status or preset cannot
// reach the page as a raw value.
func TestFilterOptionsAndLabelsAreTheVocabulary(t *testing.T) {
	want := map[string][]string{
		"status": vocab.Statuses, "category": vocab.Categories, "sentiment": vocab.Sentiments,
		"source": vocab.Sources, "public_visibility": vocab.PublicVisibilities, "date_preset": vocab.DatePresets,
	}
	for k, list := range want {
		if !slices.Equal(filterOptions[k], list) {
			t.Errorf("filterOptions[%s] = %v, want %v", k, filterOptions[k], list)
		}
		if !slices.Contains(filterKeys, k) {
			t.Errorf("filter %s is not among filterKeys", k)
		}
	}
	for k := range filterOptions {
		if want[k] == nil {
			t.Errorf("filterOptions[%s] is not checked against a vocabulary", k)
		}
	}
	for _, list := range [][]string{vocab.Statuses, vocab.Categories, vocab.Sentiments, vocab.PublicVisibilities, vocab.DatePresets, vocab.QueryModes} {
		for _, v := range list {
			if label(v) == v {
				t.Errorf("%s has no label", v)
			}
		}
	}
}

// The share-of-voice page offers the week, month, quarter and month to
// date, all of them presets the report accepts.
func TestShareOfVoicePresetsAreTheVocabulary(t *testing.T) {
	want := []string{"last_7_days", "last_30_days", "last_90_days", "month_to_date"}
	if !slices.Equal(sovPresets, want) {
		t.Errorf("sovPresets = %v, want %v", sovPresets, want)
	}
	for _, p := range sovPresets {
		if !slices.Contains(vocab.BoundedDatePresets, p) {
			t.Errorf("%s is not a bounded date preset", p)
		}
	}
}

// The inbox reflects every list_mentions parameter in its URL but the
// cursor, and a saved view holds exactly the filter: a parameter added to
// the query reaches the dashboard without a second list to edit.
func TestInboxKeysAreListMentionsParameters(t *testing.T) {
	svc := capability.New(storetest.Open(t), capability.Config{}, slog.New(slog.DiscardHandler))
	c, ok := svc.Capability("list_mentions")
	if !ok {
		t.Fatal("no list_mentions")
	}
	var want []string
	for _, f := range c.Fields {
		if f.Name != "cursor" {
			want = append(want, f.Name)
		}
	}
	got := slices.Clone(filterKeys)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("filterKeys = %v, want list_mentions' parameters %v", got, want)
	}
	for _, k := range viewKeys {
		if k == "limit" || k == "sort" || k == "collapse" || k == "collected_since" || !slices.Contains(filterKeys, k) {
			t.Errorf("view key %s is not a filter", k)
		}
	}
}

// The dashboard's category labels are the ones every project starts with
// (store.DefaultCategories): one wording for a category.
func TestCategoryLabelsAreTheDefaultLabels(t *testing.T) {
	for _, c := range store.DefaultCategories {
		if got := label(c.Category); got != c.Label {
			t.Errorf("label(%s) = %q, want the default label %q", c.Category, got, c.Label)
		}
	}
}
