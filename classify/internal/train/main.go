// Command train builds the embedded category model from the Mini-BAR
// reviews in classify/testdata/minibar. Run it through go generate:
//
//	go generate ./classify
//
// It writes classify/category_model.json, which the classifier embeds. The
// shipped model is trained on every Mini-BAR file; the L2 penalty and the
// thresholds are chosen by cross-validation on that data. The reported
// scores come from the cross-app evaluation (category_eval_test.go), which
// trains on one app and tests on the other.
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"earshot/classify/internal/catmodel"
)

func main() {
	dir := flag.String("data", "testdata/minibar", "folder with the Mini-BAR CSV files")
	out := flag.String("out", "category_model.json", "model file to write")
	flag.Parse()

	docs, err := LoadMinibar(*dir)
	if err != nil {
		log.Fatal(err)
	}
	m := catmodel.Train(docs, catmodel.DefaultOptions)
	b, err := json.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "train: %d documents, %d features, L2 %g, thresholds %v -> %s (%d bytes)\n",
		len(docs), len(m.Weights), m.L2, m.Threshold, *out, len(b))
}

// LoadMinibar reads every CSV file in dir (sorted by name, so the folds are
// the same on every machine). Labels: problem_report -> bug_report,
// feature_request -> product_idea; a row may carry both. Rows with neither
// label (irrelevant, or unlabelled) are negatives for both.
func LoadMinibar(dir string) ([]catmodel.Doc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no CSV files in %s", dir)
	}
	var docs []catmodel.Doc
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, r := range recs[1:] {
			docs = append(docs, catmodel.Doc{Text: r[0], Labels: []bool{r[3] == "1", r[4] == "1"}})
		}
	}
	return docs, nil
}
