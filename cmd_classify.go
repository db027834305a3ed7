package main

import (
	"context"
	"io"

	"earshot/classify"
)

// cmdClassify classifies JSON lines from stdin to stdout (CONTRACT §1).
func cmdClassify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("classify", stderr, getenv, &cfg)
	which := fs.String("classifier", envOr(getenv, "EARSHOT_CLASSIFIER", "builtin"), "builtin or ollama (EARSHOT_CLASSIFIER)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *which != "builtin" && *which != "ollama" {
		return usagef("--classifier must be builtin or ollama")
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
