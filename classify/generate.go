package classify

// The category model is trained from the Mini-BAR reviews in testdata/ and
// embedded in the binary. Regenerate it after changing the data or the
// features in internal/catmodel. Training is deterministic: the same data
// always gives the same file.
//go:generate go run ./internal/train -data testdata/minibar -out category_model.json
