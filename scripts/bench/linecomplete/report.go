package main

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

// report prints exact match and edit similarity by language and mode,
// with the median request time and the share of prompt tokens cached.
func report(files []string) error {
	if len(files) == 0 {
		return errors.New("report: give results files")
	}
	type key struct{ lang, mode string }
	type agg struct {
		n, exact       int
		sim            float64
		secs           []float64
		cached, prompt int
	}
	all := map[key]*agg{}
	for _, f := range files {
		rs, err := readLines[result](f)
		if err != nil {
			return err
		}
		for _, r := range rs {
			k := key{r.Lang, r.Mode}
			a := all[k]
			if a == nil {
				a = &agg{}
				all[k] = a
			}
			a.n++
			if r.Exact {
				a.exact++
			}
			a.sim += r.EditSim
			a.secs = append(a.secs, r.Seconds)
			a.cached += r.CacheN
			a.prompt += r.CacheN + r.PromptN
		}
	}
	keys := make([]key, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	order := map[string]int{"none": 0, "chunks": 1, "repo": 2, "both": 3}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].lang != keys[j].lang {
			return keys[i].lang < keys[j].lang
		}
		return order[keys[i].mode] < order[keys[j].mode]
	})
	fmt.Println("| language | context | lines | exact match % | edit similarity % | p50 s | prompt tokens cached % |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, k := range keys {
		a := all[k]
		slices.Sort(a.secs)
		fmt.Printf("| %s | %s | %d | %.1f | %.1f | %.2f | %.0f |\n", k.lang, k.mode, a.n, 100*float64(a.exact)/float64(a.n),
			100*a.sim/float64(a.n), a.secs[len(a.secs)/2], 100*float64(a.cached)/float64(max(1, a.prompt)))
	}
	return nil
}
