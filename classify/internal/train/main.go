// Command train builds the embedded category model from the Mini-BAR
// reviews in classify/testdata/minibar. Run it through go generate:
//
//	go generate ./classify
//
// It writes classify/category_model.json, which the classifier embeds.
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"earshot/classify/internal/nb"
)

func main() {
	dir := flag.String("data", "testdata/minibar", "folder with the Mini-BAR CSV files")
	out := flag.String("out", "category_model.json", "model file to write")
	flag.Parse()

	docs, err := LoadMinibar(*dir)
	if err != nil {
		log.Fatal(err)
	}
	m := nb.Train(docs, MinibarClasses, 1.0, 2)
	b, err := json.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "train: %d documents, %d features -> %s (%d bytes)\n", len(docs), len(m.Weights), *out, len(b))
}

// MinibarClasses are the classes the model predicts, named as Earshot's
// categories: problem_report -> bug_report, feature_request -> product_idea,
// irrelevant -> other.
var MinibarClasses = []string{"bug_report", "product_idea", "other"}

// LoadMinibar reads every CSV file in dir. A row labelled both problem report
// and feature request trains both classes; a row with no label is skipped.
func LoadMinibar(dir string) ([]nb.Doc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no CSV files in %s", dir)
	}
	var docs []nb.Doc
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
			var cls []string
			if r[3] == "1" {
				cls = append(cls, "bug_report")
			}
			if r[4] == "1" {
				cls = append(cls, "product_idea")
			}
			if r[5] == "1" {
				cls = append(cls, "other")
			}
			if len(cls) > 0 {
				docs = append(docs, nb.Doc{Text: r[0], Classes: cls})
			}
		}
	}
	return docs, nil
}
