// Command testreport reads 'go test -json' output on standard input and
// writes what a person needs from it: each package's result as go test
// prints it, the output of every failed test, and at the end every skipped
// test with its reason. With -fail-on-skip (what CI sets) a skipped test
// fails the run, so a missing model, data set or browser cannot pass as a
// skip. The exit status is 1 when a test or package failed (or skipped,
// with -fail-on-skip).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

func main() {
	failOnSkip := flag.Bool("fail-on-skip", false, "a skipped test fails the run")
	flag.Parse()
	os.Exit(report(os.Stdin, os.Stdout, *failOnSkip))
}

// report summarises the events read from r on w and returns the exit
// status.
func report(r io.Reader, w io.Writer, failOnSkip bool) int {
	out := map[key][]string{}
	var failed, skipped []key
	bad := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(w, sc.Text()) // not an event: a build error, say
			bad = true
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			out[k] = append(out[k], e.Output)
			if e.Test == "" && (strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") ||
				strings.HasPrefix(e.Output, "?") || strings.HasPrefix(e.Output, "---")) {
				fmt.Fprint(w, e.Output)
			}
		case "fail":
			bad = true
			if e.Test != "" {
				failed = append(failed, k)
			} else if len(failed) == 0 || failed[len(failed)-1].pkg != e.Package {
				failed = append(failed, k) // a package that failed outside its tests
			}
		case "skip":
			if e.Test != "" {
				skipped = append(skipped, k)
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(w, "testreport:", err)
		return 1
	}
	for _, k := range failed {
		fmt.Fprintf(w, "\n=== FAILED %s %s\n%s", k.pkg, k.test, strings.Join(out[k], ""))
	}
	sort.Slice(skipped, func(i, j int) bool {
		if skipped[i].pkg != skipped[j].pkg {
			return skipped[i].pkg < skipped[j].pkg
		}
		return skipped[i].test < skipped[j].test
	})
	fmt.Fprintf(w, "\n%d tests skipped\n", len(skipped))
	for _, k := range skipped {
		fmt.Fprintf(w, "SKIP %s %s: %s\n", k.pkg, k.test, reason(out[k]))
	}
	if failOnSkip && len(skipped) > 0 {
		fmt.Fprintln(w, "FAIL: tests skipped where every check is required")
		bad = true
	}
	if bad {
		return 1
	}
	return 0
}

// reason is the text a skipped test logged (its t.Skip message), without
// go test's own "--- SKIP" line.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}
