package classify

import (
	"strings"
	"testing"
)

// Issue 25 M8: the status /healthz shows anonymous callers has no host,
// detail or breaker error; the operator's has them without credentials.
func TestStatusView(t *testing.T) {
	st := Status{Active: "builtin", Mode: "auto", Host: "http://127.0.0.1:11434",
		Detail:  `no usable Ollama at start: Get "http://ops:pa55@10.1.2.3:11434/api/tags": dial tcp 10.1.2.3:11434: connect: connection refused`,
		Breaker: &BreakerState{State: "open", LastError: "https://u:p@ollama.internal/x: timeout"}}
	anon := st.View(false)
	if anon.Host != "" || anon.Detail != "" || anon.Breaker.LastError != "" || anon.Breaker.State != "open" || anon.Active != "builtin" {
		t.Errorf("anonymous view %+v %+v", anon, anon.Breaker)
	}
	op := st.View(true)
	if strings.Contains(op.Detail, "pa55") || strings.Contains(op.Breaker.LastError, "u:p@") || !strings.Contains(op.Detail, "10.1.2.3") {
		t.Errorf("operator view %+v %+v", op, op.Breaker)
	}
	if st.Breaker.LastError == "" {
		t.Error("View changed the status it was called on")
	}
}
