package capability

import (
	"errors"

	"earshot/netguard"
)

// checkWebhookURL applies the URL guard (docs/decisions.md#webhooks) to a
// webhook or alert target (the delivery client checks the resolved IP again).
// The message is the guard's reason, never a resolver's or Go's error text.
func (s *Service) checkWebhookURL(param, raw string) error {
	if err := netguard.ValidateURL(raw, s.Config.AllowPrivateWebhooks); err != nil {
		return refusedURL(param, err, "webhook URL", "webhooks must reach a public address")
	}
	return nil
}

// refusedURL is the 400 for a URL deliver's guard refused: the guard's
// reason, and for a refused address what is allowed instead. what names
// the URL when the error carries no reason.
func refusedURL(param string, err error, what, publicOnly string) error {
	var ue *netguard.URLError
	if !errors.As(err, &ue) {
		return Invalid(param, "%s is not an allowed %s", param, what)
	}
	if errors.Is(err, netguard.ErrForbiddenAddress) {
		return Invalid(param, "%s: %s; %s", param, ue.Reason, publicOnly)
	}
	return Invalid(param, "%s: %s", param, ue.Reason)
}
