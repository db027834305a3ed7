// Command trainsent trains the learned sentiment layer and writes
// classify/sentiment_model.json, which the classifier embeds. Run it
// through go generate (from the classify folder):
//
//	go generate ./classify
//
// Training data, all permissively licensed (see NOTICE):
//   - GoEmotions train split (Apache 2.0), emotions grouped into
//     negative/neutral/positive as the paper does; rows whose labels fall in
//     two groups or only in the ambiguous group are left out. Read from
//     $EARSHOT_DATA_DIR/goemotions (default ../../shared/data).
//   - VADER tweets (MIT), rows with an even id only: the odd ids stay out
//     so the evaluation has held-out tweets. Strict ±0.05 rule on rating/4.
//   - Mini-BAR reviews (MIT), star ratings as weak labels: 1-2 negative,
//     3 neutral, 4-5 positive.
//
// TweetEval is never read here: it may only be used to measure.
// Only weights and a word list (words seen in at least five training texts)
// are written, never texts. Training is deterministic.
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"earshot/classify"
	"earshot/classify/internal/sentmodel"
	"earshot/classify/internal/words"
)

type doc struct {
	text   string
	y      int
	weight float64
}

func main() {
	dataDir := os.Getenv("EARSHOT_DATA_DIR")
	if dataDir == "" {
		dataDir = filepath.Join("..", "..", "shared", "data")
	}
	goemo := flag.String("goemotions", filepath.Join(dataDir, "goemotions"), "GoEmotions folder (train.tsv, emotions.txt)")
	vader := flag.String("vader", filepath.Join("testdata", "vader", "tweets_GroundTruth.txt"), "VADER tweet ground truth")
	minibar := flag.String("minibar", filepath.Join("testdata", "minibar"), "Mini-BAR folder")
	out := flag.String("out", "sentiment_model.json", "model file to write")
	wGo := flag.Float64("w-goemotions", 1, "weight of a GoEmotions example")
	wVader := flag.Float64("w-vader", 3, "weight of a VADER example")
	wMini := flag.Float64("w-minibar", 1, "weight of a Mini-BAR example")
	l2 := flag.Float64("l2", 1e-3, "L2 penalty")
	epochs := flag.Int("epochs", 150, "epochs")
	prior := flag.Float64("balance", 1, "how much of the training class prior to remove from the bias (0..1)")
	flag.Parse()

	var docs []doc
	ge, err := loadGoEmotions(*goemo, *wGo)
	if err != nil {
		log.Fatal(err)
	}
	docs = append(docs, ge...)
	vd, err := loadVader(*vader, *wVader)
	if err != nil {
		log.Fatal(err)
	}
	docs = append(docs, vd...)
	mb, err := loadMinibar(*minibar, *wMini)
	if err != nil {
		log.Fatal(err)
	}
	docs = append(docs, mb...)

	nCols := len(classify.DenseFeatureNames()) + classify.SentimentBuckets
	ex := make([]sentmodel.Example, len(docs))
	df := map[string]int{}
	for i, d := range docs {
		ex[i] = sentmodel.Example{X: classify.LearnedFeatures(d.text), Y: d.y, Weight: d.weight}
		seen := map[string]bool{}
		for _, w := range words.Words(d.text) {
			if len(w) >= 2 && len(w) <= 20 && isLetters(w) && !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	w, b := sentmodel.Train(ex, nCols, sentmodel.Options{L2: *l2, Epochs: *epochs, Rate: 0.2})
	// The classes' shares differ between the training sets and the posts
	// the product reads (GoEmotions is a third neutral, complaints to
	// brands are mostly negative); a prior of *prior (0 = as trained, 1 =
	// balanced classes) is taken out of the bias.
	var share [3]float64
	tot := 0.0
	for _, e := range ex {
		share[e.Y] += e.Weight
		tot += e.Weight
	}
	for k := range b {
		b[k] -= *prior * math.Log(3*share[k]/tot)
		b[k] = math.Round(b[k]*1e4) / 1e4
	}
	var vocab []string
	for wd, n := range df {
		if n >= 5 {
			vocab = append(vocab, wd)
		}
	}
	sort.Strings(vocab)
	m := sentmodel.Model{
		Classes: sentmodel.Classes, Dense: classify.DenseFeatureNames(), Buckets: classify.SentimentBuckets, W: w, B: b, Vocab: vocab,
		Features: classify.FeatureFingerprint(),
		Trained: fmt.Sprintf("GoEmotions train %d rows (w %g), VADER tweets even ids %d (w %g), Mini-BAR star ratings %d (w %g); L2 %g, %d epochs, class prior removed %g",
			len(ge), *wGo, len(vd), *wVader, len(mb), *wMini, *l2, *epochs, *prior),
	}
	bs, err := json.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(bs, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "trainsent: %s; %d vocabulary words -> %s (%d bytes)\n", m.Trained, len(vocab), *out, len(bs))
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

var groups = map[string]int{
	"admiration": 2, "amusement": 2, "approval": 2, "caring": 2, "desire": 2, "excitement": 2, "gratitude": 2, "joy": 2,
	"love": 2, "optimism": 2, "pride": 2, "relief": 2,
	"anger": 0, "annoyance": 0, "disappointment": 0, "disapproval": 0, "disgust": 0, "embarrassment": 0, "fear": 0,
	"grief": 0, "nervousness": 0, "remorse": 0, "sadness": 0,
	"neutral":   1,
	"confusion": -1, "curiosity": -1, "realization": -1, "surprise": -1,
}

func loadGoEmotions(dir string, weight float64) ([]doc, error) {
	names, err := os.ReadFile(filepath.Join(dir, "emotions.txt"))
	if err != nil {
		return nil, fmt.Errorf("GoEmotions (set EARSHOT_DATA_DIR): %w", err)
	}
	nl := strings.Fields(string(names))
	f, err := os.Open(filepath.Join(dir, "train.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []doc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) < 2 {
			continue
		}
		y := -2
		for _, s := range strings.Split(p[1], ",") {
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(nl) {
				y = -1
				break
			}
			g := groups[nl[i]]
			if g == -1 || (y != -2 && y != g) {
				y = -1
				break
			}
			y = g
		}
		if y >= 0 {
			docs = append(docs, doc{p[0], y, weight})
		}
	}
	return docs, sc.Err()
}

func loadVader(path string, weight float64) ([]doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []doc
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.SplitN(sc.Text(), "\t", 3)
		if len(p) != 3 {
			return nil, fmt.Errorf("bad VADER line %q", sc.Text())
		}
		id, err1 := strconv.Atoi(p[0])
		r, err2 := strconv.ParseFloat(p[1], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad VADER line %q", sc.Text())
		}
		if id%2 != 0 {
			continue // odd ids are held out for the evaluation
		}
		y := 1
		switch s := r / 4; {
		case s > 0.05:
			y = 2
		case s < -0.05:
			y = 0
		}
		docs = append(docs, doc{p[2], y, weight})
	}
	return docs, sc.Err()
}

func loadMinibar(dir string, weight float64) ([]doc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no Mini-BAR CSV files in %s", dir)
	}
	var docs []doc
	for _, fn := range files {
		f, err := os.Open(fn)
		if err != nil {
			return nil, err
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return nil, err
		}
		for _, r := range recs[1:] {
			stars, err := strconv.Atoi(r[1])
			if err != nil {
				continue
			}
			y := 1
			switch {
			case stars <= 2:
				y = 0
			case stars >= 4:
				y = 2
			}
			docs = append(docs, doc{r[0], y, weight})
		}
	}
	return docs, nil
}
