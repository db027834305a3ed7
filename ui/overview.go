package ui

import "fmt"

// overview is the inbox's picture of the conversation for its filters:
// mentions per day (or hour) by sentiment, with spikes linked to the
// mentions behind them (get_mention_stats).
type overview struct {
	Chart                               chart
	Total, Positive, Neutral, Negative int
	Spikes                              []spikeItem
	Window                              string // "from Mon 27 Oct to Wed 26 Nov"
}

// spikeItem is a spike in words, linked to the inbox listing its mentions.
type spikeItem struct {
	Label, Href string
}

func pctOf(a, b int) int {
	if b <= 0 {
		return 0
	}
	return (a*100 + b/2) / b
}

// Words sums the window up: "412 mentions · 62% positive · …".
func (o *overview) Words() string {
	if o.Total == 0 {
		return "No mentions"
	}
	return fmt.Sprintf("%d mentions · %d%% positive · %d%% neutral · %d%% negative", o.Total,
		pctOf(o.Positive, o.Total), pctOf(o.Neutral, o.Total), pctOf(o.Negative, o.Total))
}
