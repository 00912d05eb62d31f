package main

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

// report prints exact match and edit similarity by language and mode,
// with the median request time and the share of prompt tokens cached,
// over the lines every mode of a language has answered (a run in
// progress compares like with like).
func report(files []string) error {
	if len(files) == 0 {
		return errors.New("report: give results files")
	}
	byLang := map[string]map[string]map[string]result{} // lang → mode → id
	for _, f := range files {
		rs, err := readLines[result](f)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if byLang[r.Lang] == nil {
				byLang[r.Lang] = map[string]map[string]result{}
			}
			if byLang[r.Lang][r.Mode] == nil {
				byLang[r.Lang][r.Mode] = map[string]result{}
			}
			byLang[r.Lang][r.Mode][r.ID] = r
		}
	}
	order := map[string]int{"none": 0, "chunks": 1, "repo": 2, "both": 3}
	fmt.Println("| language | context | lines | exact match % | edit similarity % | p50 s | prompt tokens cached % |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, lang := range sortedKeys(byLang) {
		modes := byLang[lang]
		var common []string
		for id := range modes[sortedKeys(modes)[0]] {
			all := true
			for _, m := range modes {
				if _, ok := m[id]; !ok {
					all = false
				}
			}
			if all {
				common = append(common, id)
			}
		}
		names := sortedKeys(modes)
		sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
		for _, mode := range names {
			var exact, cached, prompt int
			var sim float64
			var secs []float64
			for _, id := range common {
				r := modes[mode][id]
				if r.Exact {
					exact++
				}
				sim += r.EditSim
				secs = append(secs, r.Seconds)
				cached += r.CacheN
				prompt += r.CacheN + r.PromptN
			}
			if len(common) == 0 {
				continue
			}
			slices.Sort(secs)
			n := float64(len(common))
			fmt.Printf("| %s | %s | %d | %.1f | %.1f | %.2f | %.0f |\n", lang, mode, len(common), 100*float64(exact)/n,
				100*sim/n, secs[len(secs)/2], 100*float64(cached)/float64(max(1, prompt)))
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
