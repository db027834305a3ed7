package capability

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"earshot/store"
)

// Error is an API error: an HTTP status, a stable code for programs, a
// message for people and, when one field is at fault, its name.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Param)
	}
	return e.Code + ": " + e.Message
}

// Invalid is a 400 for one field.
func Invalid(param, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "VALIDATION_ERROR", Message: fmt.Sprintf(format, args...), Param: param}
}

// NotFound is a 404; it never says whether the resource exists elsewhere.
func NotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "NOT_FOUND", Message: what + " not found"}
}

// notFoundParam is a 404 for a record named by one input field (a filter's
// monitor id): it says which field, never whether the record exists in
// another project.
func notFoundParam(what, param string) *Error {
	e := NotFound(what)
	e.Param = param
	return e
}

// Forbidden is a 403.
func Forbidden(msg string) *Error {
	return &Error{Status: http.StatusForbidden, Code: "FORBIDDEN", Message: msg}
}

// Unauthorized is a 401.
func Unauthorized(msg string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: "UNAUTHORIZED", Message: msg}
}

// Conflict is a 409 CONFLICT.
func Conflict(msg string) *Error {
	return &Error{Status: http.StatusConflict, Code: "CONFLICT", Message: msg}
}

// UsageLimit is a 402.
func UsageLimit(msg string) *Error {
	return &Error{Status: http.StatusPaymentRequired, Code: "USAGE_LIMIT_REACHED", Message: msg}
}

// Internal is a 500 that says nothing about internals.
func Internal() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "INTERNAL", Message: "internal error; the request id identifies it in the server log"}
}

// StorageFull is a 507: the database could not write for lack of space.
// Nothing of the request was stored (its transaction rolled back), so the
// same request, with the same Idempotency-Key, may be sent again once
// space is freed.
func StorageFull() *Error {
	return &Error{Status: http.StatusInsufficientStorage, Code: "STORAGE_FULL",
		Message: "the server's storage is full (disk or database size limit): nothing was saved; retry once space is freed"}
}

// AsError maps any error from a capability to an *Error; unknown errors
// become INTERNAL (ok=false so the caller logs the original).
func AsError(err error, what string) (e *Error, known bool) {
	if errors.As(err, &e) {
		return e, true
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NotFound(what), true
	case store.IsStorageFull(err):
		return StorageFull(), true
	case errors.Is(err, store.ErrConflict):
		// "…: conflict" reads as noise to a person; the code says it.
		return Conflict(strings.TrimSuffix(err.Error(), ": "+store.ErrConflict.Error())), true
	}
	return Internal(), false
}
