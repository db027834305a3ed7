package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// Describe says why an outbound request failed in words fit for a
// delivery log or a source's last_error, read by a project's users: the
// guard's rule ("refused: the resolved address is a private address") or
// the kind of network failure, never the dialler's own text, which names
// the address a host resolved to (an internal one behind a rebinding or
// CNAME'd name).
func Describe(err error) string {
	var ue *URLError
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	switch {
	case errors.As(err, &ue):
		return "refused: " + ue.Reason
	case errors.Is(err, ErrForbiddenAddress):
		return "refused: not a public address"
	case errors.Is(err, ErrLoopbackOnly):
		return "refused: " + EnvLoopbackOnly + " allows loopback addresses only"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "host does not resolve"
		}
		return "host could not be resolved"
	case errors.Is(err, context.DeadlineExceeded), os.IsTimeout(err):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed by the server"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case errors.As(err, &certErr):
		return "TLS certificate not trusted"
	case errors.As(err, &recErr):
		return "TLS handshake failed (not a TLS server)"
	}
	return "network error"
}
