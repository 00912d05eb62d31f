package bench

import (
	"regexp"
	"strings"
)

// exceptionRe matches the last line of a Python traceback.
var exceptionRe = regexp.MustCompile(`^(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning)\b.*`)

// failureDetail picks the most telling line of a failed test's output: the
// first pytest "FAILED"/"ERROR" summary line that names the exception, else
// the last exception line of a traceback, else pytest's "no tests ran".
func failureDetail(output string) string {
	lines := strings.Split(strings.ReplaceAll(output, "\r\n", "\n"), "\n")
	for _, l := range lines {
		if d, ok := summaryDetail(l); ok {
			return clip(d)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(strings.TrimPrefix(lines[i], "E "))
		if exceptionRe.MatchString(l) {
			return clip(l)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "no tests ran") {
			return "no tests collected"
		}
	}
	return ""
}

// summaryDetail reads a pytest short-summary line ("FAILED file::test -
// Error: ..." or "ERROR file - Error: ...") as "test: Error: ...".
func summaryDetail(l string) (string, bool) {
	rest, ok := strings.CutPrefix(l, "FAILED ")
	if !ok {
		if rest, ok = strings.CutPrefix(l, "ERROR "); !ok {
			return "", false
		}
	}
	where, what, ok := strings.Cut(rest, " - ")
	if !ok {
		return "", false
	}
	if _, test, ok := strings.Cut(where, "::"); ok {
		return test + ": " + what, true
	}
	return "collection: " + what, true
}

// clip shortens s to 300 bytes on a UTF-8 boundary.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= 300 {
		return s
	}
	cut := 300
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
