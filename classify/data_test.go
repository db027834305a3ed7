package classify

import (
	"bufio"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sharedDataDir is where the labelled development data lives:
// $EARSHOT_DATA_DIR, or ../shared/data next to the repository.
func sharedDataDir() string {
	if d := os.Getenv("EARSHOT_DATA_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

type vaderRow struct {
	Text   string
	Rating float64
}

// vaderGold maps a mean rating (-4..4) to the paper's three classes, using
// the strict rule of shared/data/README.md.
func vaderGold(rating float64) string {
	s := rating / 4
	switch {
	case s > 0.05:
		return "positive"
	case s < -0.05:
		return "negative"
	}
	return "neutral"
}

func loadVader(t testing.TB) []vaderRow {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "vader", "tweets_GroundTruth.txt"))
	if err != nil {
		t.Skipf("VADER data missing: %v", err)
	}
	defer f.Close()
	var rows []vaderRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("bad VADER line %q", sc.Text())
		}
		v, err := strconv.ParseFloat(parts[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, vaderRow{Text: parts[2], Rating: v})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

type tweetEvalRow struct {
	Text  string
	Label string
}

func loadTweetEval(t testing.TB) []tweetEvalRow {
	t.Helper()
	dir := filepath.Join(sharedDataDir(), "tweeteval")
	texts, err := os.ReadFile(filepath.Join(dir, "val_text.txt"))
	if err != nil {
		t.Skipf("TweetEval data missing (set EARSHOT_DATA_DIR): %v", err)
	}
	labels, err := os.ReadFile(filepath.Join(dir, "val_labels.txt"))
	if err != nil {
		t.Skipf("TweetEval labels missing: %v", err)
	}
	tl := strings.Split(strings.TrimRight(string(texts), "\n"), "\n")
	ll := strings.Split(strings.TrimRight(string(labels), "\n"), "\n")
	if len(tl) != len(ll) {
		t.Fatalf("TweetEval: %d texts, %d labels", len(tl), len(ll))
	}
	names := map[string]string{"0": "negative", "1": "neutral", "2": "positive"}
	rows := make([]tweetEvalRow, len(tl))
	for i := range tl {
		rows[i] = tweetEvalRow{Text: tl[i], Label: names[strings.TrimSpace(ll[i])]}
	}
	return rows
}

type minibarRow struct {
	Text             string
	Bug, Idea, Irrel bool
	App              string
}

func loadMinibar(t testing.TB, file string) []minibarRow {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "minibar", file))
	if err != nil {
		t.Skipf("Mini-BAR data missing: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []minibarRow
	for _, r := range recs[1:] {
		rows = append(rows, minibarRow{Text: r[0], Bug: r[3] == "1", Idea: r[4] == "1", Irrel: r[5] == "1", App: r[7]})
	}
	return rows
}
