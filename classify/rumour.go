package classify

import (
	"strings"
	"unicode"
)

// Rules an outside audit asked for: rumours, debunks, faint praise, praise
// told by negating a failure, sarcasm about a loss, outages named by the
// brand, price rises. Like the complaint rules, none names an industry, a
// product or one domain's vocabulary.

// rumourMarkers pass a claim on without owning it: hearsay, asking others
// to confirm, "breaking" with no source.
var rumourMarkers = newPhraseSet([]string{"heard", "i heard", "rumor", "rumour", "rumors", "rumours", "rumored", "rumoured",
	"apparently", "anyone confirm", "can anyone confirm", "can someone confirm", "somebody confirm", "is it true",
	"i read somewhere", "read somewhere", "someone said", "people are saying", "word is", "supposedly", "allegedly",
	"unconfirmed", "breaking", "going around", "leaked memo", "sources say", "insiders say"})

// rumourClaims are the kinds of news rumours are made of: a company sold,
// closing, failing or misusing what users gave it.
var rumourClaims = newPhraseSet([]string{"being acquired", "been acquired", "is acquiring", "being sold", "been sold",
	"being bought", "bought out", "shutdown", "acquisition", "buyout", "will shut down", "shutting down", "shut down", "is closing", "will close", "closing down",
	"going bankrupt", "bankrupt", "out of business", "ran out of money", "running out of money", "laying off", "layoffs",
	"selling user data", "selling your data", "selling our data", "sells user data", "sells your data", "is selling",
	"export your data", "delete your account", "goes away", "going away", "will be discontinued", "discontinued",
	"is ending", "will end", "going under", "is under investigation"})

// debunkMarkers correct a rumour.
var debunkMarkers = newPhraseSet([]string{"rumour check", "rumor check", "fact check", "fact-check", "fact checked", "debunk",
	"debunked", "debunking", "for the record", "not true", "isn't true", "is false", "that's false", "is fake", "no truth",
	"to clarify", "false rumour", "false rumor", "is untrue", "hoax", "stop spreading"})

// sourceMarkers give a claim a source: it is news, not a rumour.
var sourceMarkers = newPhraseSet([]string{"according to", "announced", "announces", "press release", "officially",
	"statement", "confirmed", "reports that", "http", "https"})

// rumour reports a claim passed on without a source, and the marker that
// says so; debunk reports a correction of one.
func rumour(low string) (marker string, debunk bool) {
	var buf [32]bool
	if _, ok := debunkMarkers.hits(low, buf[:]); ok {
		_, rum := rumourMarkers.hits(low, buf[:])
		_, claim := rumourClaims.hits(low, buf[:])
		if rum || claim || strings.Contains(low, "check") {
			return "", true
		}
	}
	h, ok := rumourMarkers.hits(low, buf[:])
	if !ok {
		return "", false
	}
	for i, hit := range h[:len(rumourMarkers.phrases)] {
		if hit && assertedSomewhere(low, rumourMarkers.phrases[i]) {
			marker = rumourMarkers.phrases[i]
			break
		}
	}
	if marker == "" {
		return "", false
	}
	var cbuf [64]bool
	_, claim := rumourClaims.hits(low, cbuf[:])
	_, sourced := sourceMarkers.hits(low, buf[:])
	// A rumour passes on a rumour's kind of claim (sold, closing, misusing
	// data), without a source when it is told as breaking news: hearsay
	// about an album date or a trip is no rumour about a brand.
	if !claim || (marker == "breaking" || marker == "going around") && sourced {
		return "", false
	}
	return marker, false
}

// litotes praise by denying a failure: "never disappoints", "has never let
// me down".
var litotesPraise = newPhraseSet([]string{"never disappoints", "never disappointed", "never disappoint", "never fails to",
	"never lets me down", "never let me down", "never lets us down", "never let us down", "never let me down",
	"hasn't let me down", "has not let me down", "not once let", "can't fault", "cannot fault", "no complaints",
	"couldn't be happier", "could not be happier", "can't recommend enough", "can't recommend it enough",
	"never had a bad", "haven't been disappointed"})

// faintPraise denies a failure without praising: "not terrible, I guess".
var faintPraise = newPhraseSet([]string{"not terrible", "isn't terrible", "not bad", "isn't bad", "not awful",
	"isn't awful", "not horrible", "isn't horrible", "not the worst", "isn't the worst", "not that bad", "could be worse",
	"not too bad", "not so bad"})

// sarcasmMarkers turn praise words into scorn when the post reports a loss
// ("Oh wonderful, it deleted all my projects. Love that for me.").
var lossSarcasm = newPhraseSet([]string{"oh wonderful", "oh great", "oh good", "oh nice", "oh perfect", "love that for me",
	"just what i needed", "exactly what i needed", "thanks a lot", "great job", "good job", "well done", "nice job",
	"fantastic", "wonderful", "brilliant", "amazing", "love that", "love how", "lovely", "perfect", "just great", "yay",
	"thanks", "thank you", "awesome", "great", "cool"})

// priceRise finds the price of something going up: a money word near a
// word of rising ("price went up 40%", "doubles our bill", "the price
// hike").
func priceRise(low string) bool {
	if !strings.Contains(low, "pric") && !strings.Contains(low, "bill") && !strings.Contains(low, "fee") &&
		!strings.Contains(low, "cost") && !strings.Contains(low, "subscription") && !strings.Contains(low, "rate") &&
		!strings.Contains(low, "premium") && !strings.Contains(low, "charge") && !strings.Contains(low, "tariff") &&
		!strings.Contains(low, "rent") {
		return false // the common case, without splitting the post into words
	}
	ws := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '%' })
	for i, w := range ws {
		if !moneyWords[w] {
			continue
		}
		for j := max(0, i-5); j < min(len(ws), i+6); j++ {
			if j == i {
				continue
			}
			if riseWords[ws[j]] || j+1 < len(ws) && ws[j+1] == "up" && (ws[j] == "went" || ws[j] == "goes" || ws[j] == "going" || ws[j] == "gone" || ws[j] == "jumped") {
				return true
			}
		}
	}
	return false
}

var moneyWords = map[string]bool{"price": true, "prices": true, "pricing": true, "bill": true, "bills": true, "fee": true,
	"fees": true, "cost": true, "costs": true, "subscription": true, "rate": true, "rates": true, "premium": true,
	"premiums": true, "charge": true, "charges": true, "tariff": true, "rent": true}

var riseWords = map[string]bool{"increase": true, "increased": true, "increases": true, "increasing": true, "doubled": true,
	"doubles": true, "doubling": true, "tripled": true, "triples": true, "jumped": true, "jumps": true, "hike": true,
	"hiked": true, "hikes": true, "raised": true, "raises": true, "raising": true, "skyrocketed": true, "soared": true}

// claimContradicted finds a status the brand shows contradicted by the
// customer: "says delivered but it's not here", "shows paid, but nothing".
func claimContradicted(low string) bool {
	for _, v := range [...]string{"says", "said", "shows", "showed", "marked", "claims", "claimed", "status"} {
		i := indexWord(low, v)
		if i < 0 {
			continue
		}
		rest := low[i:]
		if end := strings.IndexAny(rest, ".!?\n"); end >= 0 {
			rest = rest[:end]
		}
		j := indexWord(rest, "but")
		if j < 0 || j > 60 {
			continue
		}
		after := rest[j+3:]
		if len(after) > 30 {
			after = after[:30]
		}
		for _, n := range [...]string{"not", "nothing", "no", "never", "isn't", "it's not", "hasn't", "haven't", "didn't"} {
			if containsWord(after, n) {
				return true
			}
		}
	}
	return false
}

// leaving finds a customer moving off the brand: "moving our team off",
// "migrating everything away from".
func leaving(low string) bool {
	if !strings.Contains(low, "off") && !strings.Contains(low, "away") {
		return false
	}
	ws := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for i, w := range ws {
		switch w {
		case "moving", "migrating", "switching", "move", "migrate", "switch", "moved", "migrated", "switched":
		default:
			continue
		}
		for j := i + 1; j < min(len(ws), i+5); j++ {
			if ws[j] == "off" || ws[j] == "away" {
				return true
			}
		}
	}
	return false
}

// brandDown reports the brand named with "down" ("Zentro down?", "is
// Zentro down for anyone"): an outage asked about or told.
func brandDown(low string, terms []string) bool {
	if !strings.Contains(low, "down") {
		return false
	}
	for _, t := range terms {
		for off := 0; off < len(low); {
			i := indexWord(low[off:], t)
			if i < 0 {
				break
			}
			rest := strings.TrimLeft(low[off+i+len(t):], "'’s ")
			rest = strings.TrimPrefix(rest, "is ")
			if strings.HasPrefix(rest, "down") && (len(rest) == 4 || !isAlnumAt(rest, 4)) && !strings.HasPrefix(rest, "down with") &&
				!strings.HasPrefix(rest, "downgrade") {
				return true
			}
			off += i + len(t)
		}
	}
	return false
}

// serverError finds a server error told with its code ("returns 500",
// "getting 503 errors").
func serverError(low string) bool {
	if !strings.Contains(low, "5") {
		return false
	}
	ws := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range ws {
		n := atoiSmall(w)
		if n < 500 || n > 599 || len(w) != 3 {
			continue
		}
		prev, next := "", ""
		if i > 0 {
			prev = ws[i-1]
		}
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		switch prev {
		case "returns", "returning", "returned", "getting", "got", "throws", "throwing", "http", "status", "error", "errors", "gives", "giving":
			return true
		}
		switch next {
		case "error", "errors", "s", "status":
			return true
		}
	}
	return false
}
