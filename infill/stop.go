package infill

import (
	"strings"
	"time"
)

// Stop kinds, llama.cpp's stop_type names.
const (
	StopNone  = "none"  // not stopped (yet)
	StopEOS   = "eos"   // the model ended the text
	StopWord  = "word"  // a stop string
	StopLimit = "limit" // the token limit, the indentation rule or the time limit
)

// Guard ends a completion by llama.cpp's rules as its text grows, and
// holds back the end of the text while it may still be cut: the start of
// a stop string, or a new line whose indentation is not yet known.
type Guard struct {
	// Stops are the stop strings: the text ends before the first found.
	Stops []string
	// Indent, when above 0, ends the text before the first new line that
	// is indented less (a line of only whitespace does not count yet).
	Indent int
	// After a newline has been written, the completion ends once Limit has
	// passed since Start (0: no limit).
	Limit time.Duration
	Start time.Time
	// Now reads the clock (nil: time.Now).
	Now func() time.Time

	text    string
	sent    int
	stopped string
	word    string
}

// Add appends piece and returns the text that can be sent now, and
// whether the completion must stop (Stopped says why; the text is then
// final and all sent).
func (g *Guard) Add(piece string) (string, bool) {
	if g.stopped != "" {
		return "", true
	}
	g.text += piece
	end := len(g.text)
	for _, s := range g.Stops {
		if i := strings.Index(g.text, s); i >= 0 && i < end {
			end, g.word, g.stopped = i, s, StopWord
		}
	}
	if i := g.underIndented(end); i >= 0 {
		end, g.word, g.stopped = i, "", StopLimit
	}
	if g.stopped == "" && g.Limit > 0 && strings.Contains(g.text, "\n") && g.now().Sub(g.Start) > g.Limit {
		g.stopped = StopLimit
	}
	if g.stopped != "" {
		g.text = g.text[:max(end, g.sent)]
		return g.flush(len(g.text)), true
	}
	return g.flush(g.safe()), false
}

// underIndented returns where the first complete-enough line indented
// less than Indent starts within text[:end], or -1.
func (g *Guard) underIndented(end int) int {
	if g.Indent <= 0 {
		return -1
	}
	for i := strings.IndexByte(g.text, '\n'); i >= 0 && i < end; {
		start := i + 1
		n := 0
		for start+n < end && (g.text[start+n] == ' ' || g.text[start+n] == '\t') {
			n++
		}
		if start+n < end && g.text[start+n] != '\n' && n < g.Indent {
			return start
		}
		next := strings.IndexByte(g.text[start:], '\n')
		if next < 0 {
			break
		}
		i = start + next
	}
	return -1
}

// safe is how much of the text cannot be cut any more.
func (g *Guard) safe() int {
	safe := len(g.text)
	for _, s := range g.Stops {
		for k := min(len(s)-1, len(g.text)); k > 0; k-- {
			if strings.HasSuffix(g.text, s[:k]) {
				safe = min(safe, len(g.text)-k)
				break
			}
		}
	}
	if g.Indent > 0 {
		if nl := strings.LastIndexByte(g.text, '\n'); nl >= 0 && strings.TrimLeft(g.text[nl+1:], " \t") == "" {
			safe = min(safe, nl+1)
		}
	}
	return max(safe, g.sent)
}

func (g *Guard) flush(upto int) string {
	out := g.text[g.sent:upto]
	g.sent = upto
	return out
}

// Rest is what was held back, once the text has ended.
func (g *Guard) Rest() string { return g.flush(len(g.text)) }

// Text is the completion's text so far (after a stop, all of it).
func (g *Guard) Text() string { return g.text }

// Stopped says why the guard stopped the completion ("" while it has not).
func (g *Guard) Stopped() string { return g.stopped }

// Word is the stop string that ended the completion.
func (g *Guard) Word() string { return g.word }

func (g *Guard) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}
