package classify

import (
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Urgency is a sum of non-negative contributions (category, negative
// intensity, reach, alarm signals), raised to a floor by the gravest signals
// (data loss, security, outage: each floor is at least vocab.UrgentThreshold,
// so such a post is always urgent) and capped at 100. Every contribution grows with its input, so adding
// reach or negativity can never lower the score.

var categoryUrgency = map[string]int{
	"bug_report":     25,
	"complaint":      25,
	"misinformation": 30,
	"product_idea":   5,
	"testimonial":    0,
	"other":          5,
}

type signal struct {
	name    string
	points  int
	floor   int // urgency never below this when the signal is present
	phrases []string
}

// urgencySets indexes each signal's phrases (urgencySignals' order).
var urgencySets = func() []*phraseSet {
	sets := make([]*phraseSet, len(urgencySignals))
	for i, s := range urgencySignals {
		sets[i] = newPhraseSet(s.phrases)
	}
	return sets
}()

var urgencySignals = []signal{
	{"data loss", 45, 75, []string{"data loss", "lost all my data", "deleted all my data", "deleted my data", "lost my data",
		"deleted all my", "lost all my", "wiped my", "wiped all", "data is gone", "data are gone", "everything is gone", "all gone",
		"erased my", "erased all", "deleted everything", "lost everything", "disappeared"}},
	{"security", 40, 72, []string{"hacked", "breach", "breached", "data leak", "leaked", "vulnerability", "exploit", "compromised",
		"account was stolen", "stole my account", "phishing", "exposed my", "security hole", "security issue", "unauthorized",
		"unauthorised", "malware", "ransomware", "password leak", "in plain text", "in plaintext", "in clear text", "in cleartext",
		"plain-text", "plaintext password", "plaintext passwords", "stored unencrypted", "unencrypted", "not encrypted",
		"anyone can read", "anyone on the machine", "can read it", "world-readable", "world readable", "leaks", "leaking",
		"exposes user", "exposed user", "exposes the token", "exposed credentials", "exposes credentials", "xss", "sql injection", "remote code execution", "privilege escalation", "cve", "account takeover"}},
	{"outage", 35, 70, []string{"outage", "is down", "are down", "went down", "servers down", "server down", "down again",
		"down for everyone", "site down", "service down", "app is down", "502", "503", "service unavailable", "not loading for anyone",
		"without internet", "no internet", "no signal", "power out", "nobody can log in", "no one can log in", "everyone is getting",
		"returns 404 for everyone", "for everyone since", "is offline", "went offline", "system was down", "system is down", "down for anyone", "down for me", "is it down",
		"internal server error", "server error", "server errors", "bad gateway", "gateway timeout"}},
	{"legal", 30, 0, []string{"lawsuit", "sue", "suing", "sued", "lawyer", "attorney", "class action", "legal action", "gdpr",
		"regulator", "court", "small claims", "ftc", "chargeback", "ombudsman", "trading standards", "consumer protection",
		"report you", "reporting you", "legal"}},
	{"churn", 20, 0, []string{"cancelling", "canceling", "cancel my", "cancelled my", "canceled my", "switching to", "moving to",
		"uninstalling", "uninstalled", "never again", "moving off", "migrating off", "migrating away", "switching away", "unsubscribing", "unsubscribed", "done with", "leaving", "deleting my account",
		"delete my account", "refund"}},
}

type urgencyScore struct {
	Score   int
	Reasons []string
	// Sentence is the one-line reason stored with the mention, e.g.
	// `urgency 85: security report ("in plain text")`.
	Sentence string
}

// reach combines audience and engagement into one number of people.
func reach(in Input) float64 {
	r := float64(max(in.AuthorFollowers, 0))
	for _, v := range in.Engagement {
		if v > 0 {
			r += 5 * float64(v)
		}
	}
	return r
}

// signalWords name each alarm signal in the reason sentence.
var signalWords = map[string]string{"data loss": "data loss", "security": "security report", "outage": "outage",
	"legal": "legal threat", "churn": "customer about to leave"}

// urgencyFrom scores urgency from the post's lower-case text, its category,
// its sentiment (compound after the complaint rules), its reach and the
// complaint evidence.
func urgencyFrom(low, category string, compound, reachN float64, ce ...complaintEvidence) urgencyScore {
	var u urgencyScore
	var why []string // the parts of the reason sentence, gravest first
	score := categoryUrgency[category]
	if score > 0 {
		u.Reasons = append(u.Reasons, fmt.Sprintf("urgency +%d: category %s", score, category))
	}
	told := len(ce) > 0 && ce[0].Told() && (category == "complaint" || category == "bug_report")
	if told {
		c := ce[0]
		p := int(math.Round(math.Min(25, 6*c.Score)))
		score += p
		u.Reasons = append(u.Reasons, fmt.Sprintf("urgency +%d: service failure (%q)", p, c.Cue))
		why = append(why, fmt.Sprintf("a service failure told as fact (%q)", c.Cue))
	}
	if compound < 0 {
		p := int(math.Round(30 * -compound))
		if p > 0 {
			score += p
			u.Reasons = append(u.Reasons, fmt.Sprintf("urgency +%d: negative sentiment %.2f", p, compound))
			if !told && compound <= -0.3 {
				why = append(why, "a clearly negative post")
			}
		}
	}
	if reachN > 0 {
		p := int(math.Round(math.Min(20, 4*math.Log10(1+reachN))))
		if p > 0 {
			score += p
			u.Reasons = append(u.Reasons, fmt.Sprintf("urgency +%d: reach %.0f", p, reachN))
			if p >= 12 && compound < 0 {
				why = append(why, fmt.Sprintf("an audience of about %s", roundPeople(reachN)))
			}
		}
	}
	floor, critical := 0, false
	var alarms []string
	var buf [64]bool
	for si, s := range urgencySignals {
		h, found := urgencySets[si].hits(low, buf[:])
		if !found {
			continue
		}
		// "never lost my data", "no outage", "wasn't hacked" deny the
		// signal: it counts only where some occurrence is not negated.
		ph := ""
		for pi, hit := range h[:len(s.phrases)] {
			if hit && assertedSomewhere(low, s.phrases[pi]) {
				ph = s.phrases[pi] // the first listed that occurs asserted
				break
			}
		}
		if ph == "" {
			continue
		}
		score += s.points
		floor = max(floor, s.floor)
		critical = critical || s.floor > 0
		u.Reasons = append(u.Reasons, fmt.Sprintf("urgency +%d: %s (%q)", s.points, s.name, ph))
		alarms = append(alarms, fmt.Sprintf("%s (%q)", signalWords[s.name], ph))
	}
	why = append(alarms, why...)
	// A calm idea or a thank-you is never urgent on its own.
	if !critical && (category == "product_idea" || category == "testimonial") && score > 60 {
		score = 60
		u.Reasons = append(u.Reasons, "urgency capped at 60: "+category+" without an alarm signal")
	}
	if score < floor {
		u.Reasons = append(u.Reasons, fmt.Sprintf("urgency raised to %d by the alarm signal", floor))
		score = floor
	}
	// Praise is never urgent: a thank-you that mentions a solved outage
	// stays below 50.
	if category == "testimonial" && score > 40 {
		score = 40
		u.Reasons = append(u.Reasons, "urgency capped at 40: praise")
	} else if compound >= neutralThreshold && !critical && score > 45 {
		score = 45
		u.Reasons = append(u.Reasons, "urgency capped at 45: a positive post without an alarm signal")
	}
	u.Score = min(max(score, 0), 100)
	switch {
	case category == "testimonial":
		u.Sentence = fmt.Sprintf("urgency %d: praise, nothing to fix", u.Score)
	case len(why) > 0:
		if len(why) > 2 {
			why = why[:2]
		}
		u.Sentence = fmt.Sprintf("urgency %d: %s", u.Score, strings.Join(why, ", "))
	case category == "product_idea":
		u.Sentence = fmt.Sprintf("urgency %d: a request that can wait", u.Score)
	case category == "complaint" || category == "bug_report" || category == "misinformation":
		u.Sentence = fmt.Sprintf("urgency %d: %s without an alarm signal", u.Score, strings.ReplaceAll(category, "_", " "))
	default:
		u.Sentence = fmt.Sprintf("urgency %d: no problem reported", u.Score)
	}
	return u
}

// criticalAlarm finds the gravest alarm signal that names a defect (data
// loss, security, outage) asserted in low: its name and phrase, or "".
func criticalAlarm(low string) (name, phrase string) {
	var buf [64]bool
	for si, s := range urgencySignals {
		if s.floor == 0 {
			continue
		}
		h, found := urgencySets[si].hits(low, buf[:])
		if !found {
			continue
		}
		for pi, hit := range h[:len(s.phrases)] {
			if hit && assertedSomewhere(low, s.phrases[pi]) {
				return s.name, s.phrases[pi]
			}
		}
	}
	return "", ""
}

// roundPeople renders a reach as "12k people", "3.4M people".
func roundPeople(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM people", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0fk people", n/1e3)
	}
	return fmt.Sprintf("%.0f people", n)
}

// assertedSomewhere reports whether phrase occurs in low (as whole words)
// at least once without a negation among the three words before it.
func assertedSomewhere(low, phrase string) bool {
	for off := 0; off < len(low); {
		i := indexWord(low[off:], phrase)
		if i < 0 {
			return false
		}
		i += off
		if !negatedBefore(low[:i]) {
			return true
		}
		off = i + len(phrase)
	}
	return false
}

// negatedBefore reports a negation among the last three words of prefix,
// in the same clause.
func negatedBefore(prefix string) bool {
	// A negation does not reach across a clause: "no way, it deleted
	// everything".
	if i := strings.LastIndexAny(prefix, ".,;:!?\n"); i >= 0 {
		prefix = prefix[i+1:]
	}
	ws := strings.FieldsFunc(prefix, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' })
	for k := len(ws) - 1; k >= 0 && k >= len(ws)-3; k-- {
		w := strings.ReplaceAll(ws[k], "’", "'")
		if (denials[w] || isNegation(w)) && (k+1 == len(ws) || !notDenial[ws[k+1]]) {
			return true
		}
	}
	return false
}

// denials negate what follows besides the sentiment rules' negations ("no"
// scores as a word there, as in VADER).
var denials = map[string]bool{"no": true, "never": true, "not": true, "without": true, "zero": true, "none": true}

// notDenial follow a negation that does not deny what comes after it:
// "can't believe it deleted all my data" asserts the loss.
var notDenial = map[string]bool{"believe": true, "imagine": true, "understand": true, "know": true, "even": true,
	"just": true, "only": true, "wait": true, "stand": true, "tell": true, "sure": true}
