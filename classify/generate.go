package classify

// The category model is trained from the Mini-BAR reviews in testdata/ and
// embedded in the binary. Regenerate it after changing the data or the
// features in internal/nb.
//go:generate go run ./internal/train -data testdata/minibar -out category_model.json
