package capability

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn/frequency"
)

// Password rules, applied wherever a password is set (first-run setup,
// earshot user create and set-password, change_password, the invitation
// sign-up); logging in never applies them, so older passwords keep
// working until they are changed. They follow ASVS 4.0.3 V2.1 (at least
// 12 characters, no composition rules, a common-password check, no
// truncation) and ASVS 5 V6.2 (context words refused):
//
//   - The password is stored exactly as typed: nothing is trimmed.
//     The rules judge it with white space at either end removed and inner
//     runs of white space counted as one (ASVS allows collapsing them), so
//     "password" followed by spaces is 8 characters, not 12.
//   - At least 12 such characters, at most 72 bytes (bcrypt reads no
//     further, and truncating silently is what ASVS forbids).
//   - Not one of the 30,000 most common passwords (zxcvbn's list, from
//     leaked-password dumps; embedded, so the check is offline), nor one
//     of them with digits or symbols added at either end, nor a repeated
//     chunk or a run of consecutive characters.
//   - Still 12 characters once the account's email, its name part and
//     "earshot" are taken out of it.
const (
	minPasswordChars = 12
	maxPasswordBytes = 72
)

// commonPasswords is the embedded list, lower-cased, built on first use.
var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	list := frequency.FrequencyLists["passwords"]
	set := make(map[string]struct{}, len(list))
	for _, p := range list {
		set[strings.ToLower(p)] = struct{}{}
	}
	return set
})

// passwordAsJudged is what the rules look at: trimmed, inner white space
// runs as one space, lower case.
func passwordAsJudged(pw string) string {
	return strings.ToLower(strings.Join(strings.Fields(pw), " "))
}

// checkPassword says what is wrong with a new password, as a 400 on param.
// context holds the words of this account that must not make up the
// password (its email).
func checkPassword(param, pw string, context ...string) error {
	if len(pw) > maxPasswordBytes {
		return Invalid(param, "%s must be at most %d bytes (longer ones would be cut short silently)", param, maxPasswordBytes)
	}
	j := passwordAsJudged(pw)
	if utf8.RuneCountInString(j) < minPasswordChars {
		return Invalid(param, "%s must be at least %d characters; spaces at either end and repeated spaces do not count", param, minPasswordChars)
	}
	if isCommonPassword(j) {
		return Invalid(param, "%s is one of the most common passwords (or one with digits or symbols added): choose a longer phrase of your own", param)
	}
	if isRepetitive(j) {
		return Invalid(param, "%s is a repeated or consecutive pattern (like abcabcabc or 123456789): choose a longer phrase of your own", param)
	}
	rest := j
	for _, w := range contextWords(context) {
		rest = strings.ReplaceAll(rest, w, "")
	}
	if utf8.RuneCountInString(strings.TrimSpace(rest)) < minPasswordChars {
		return Invalid(param, "%s is built on the account's email or the product's name; it must have at least %d characters besides those", param, minPasswordChars)
	}
	return nil
}

// contextWords are the account's email, its parts and the product's name,
// lower-cased; parts shorter than 4 characters are left out (they occur
// inside ordinary words by chance: "ann" in "planning").
func contextWords(context []string) []string {
	words := []string{"earshot"}
	for _, c := range context {
		c = strings.ToLower(strings.TrimSpace(c))
		words = append(words, c)
		if local, domain, ok := strings.Cut(c, "@"); ok {
			words = append(words, local, domain)
			words = append(words, strings.FieldsFunc(local, notLetterOrDigit)...)
		}
	}
	out := words[:0]
	for _, w := range words {
		if utf8.RuneCountInString(w) >= 4 {
			out = append(out, w)
		}
	}
	// Longest first, so an email goes before its parts.
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && len(out[k]) > len(out[k-1]); k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}

func notLetterOrDigit(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// isCommonPassword: j itself, or its letters once digits, symbols and
// spaces at either end are cut ("password1234!", "  dragon 2024"), or the
// same with the usual digit-for-letter swaps ("p4ssw0rd"), is on the list.
func isCommonPassword(j string) bool {
	set := commonPasswords()
	core := strings.TrimFunc(j, func(r rune) bool { return !unicode.IsLetter(r) })
	for _, c := range []string{j, core, unleet(j), strings.TrimFunc(unleet(j), func(r rune) bool { return !unicode.IsLetter(r) })} {
		if c == "" {
			continue
		}
		if _, ok := set[c]; ok {
			return true
		}
	}
	return false
}

var leet = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s", "!", "i")

func unleet(s string) string { return leet.Replace(s) }

// isRepetitive: without its spaces and symbols, j is one chunk of at most
// half its length repeated ("abcabcabcabc", "pass pass pass"), or every
// character follows the one before it by one up or down ("123456789012"
// counts 9 → 0 as a step, "abcdefghijkl").
func isRepetitive(j string) bool {
	var rs []rune
	for _, r := range j {
		if !notLetterOrDigit(r) {
			rs = append(rs, r)
		}
	}
	n := len(rs)
	if n == 0 {
		return true
	}
	for size := 1; size <= n/2; size++ {
		if n%size != 0 {
			continue
		}
		same := true
		for i := size; i < n && same; i++ {
			same = rs[i] == rs[i-size]
		}
		if same {
			return true
		}
	}
	step := func(a, b rune, d rune) bool {
		if unicode.IsDigit(a) && unicode.IsDigit(b) {
			return (a-'0'+10+d)%10 == b-'0'
		}
		return a+d == b
	}
	for _, d := range []rune{1, -1} {
		seq := true
		for i := 1; i < n && seq; i++ {
			seq = step(rs[i-1], rs[i], d)
		}
		if seq {
			return true
		}
	}
	return false
}
