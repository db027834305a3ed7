package main

import (
	"context"
	"errors"
	"io"

	"earshot/classify"
)

// cmdClassify classifies JSON lines from stdin to stdout (CONTRACT §1).
func cmdClassify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("classify", stderr, getenv, &cfg)
	which := new(string)
	fs.checkedVar(which, "classifier", "EARSHOT_CLASSIFIER", "builtin", "`classifier`: builtin or ollama", parseClassifier)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c, err := classify.FromEnv(func(k string) string {
		if k == "EARSHOT_CLASSIFIER" {
			return *which
		}
		return getenv(k)
	})
	if err != nil {
		return err
	}
	return classify.RunJSONLines(ctx, c, stdin, stdout)
}

func parseClassifier(s string) (string, error) {
	if s != "builtin" && s != "ollama" {
		return "", errors.New("must be builtin or ollama")
	}
	return s, nil
}
