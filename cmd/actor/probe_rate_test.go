package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"actor/engine"
	"actor/generate"
	"actor/internal/testsupport"
	"actor/pipeline"
	"actor/probe"
	"actor/probe/trainset"
)

// rateLine reads the counts of probe rate's report.
var rateLine = regexp.MustCompile(`^(\d+) functions, (\d+) generated tokens .*; (\d+) judged .*; (\d+) flagged .*; (\d+) empty bodies generated again`)

// TestProbeRateRunsTheGenerator checks that probe rate counts what ACToR's
// own decoding loop generates and judges: its report equals the kept
// attempts of generate's ACToR on the same functions with the flags'
// settings (generation's prompt layout, stop rule and seeds), a probe that
// always fires flags every judged token, and one that never fires flags
// none of the same tokens.
func TestProbeRateRunsTheGenerator(t *testing.T) {
	data, _ := tinyFunctions(t, 6)
	m, tok, err := pipeline.OpenModel(tinyModel, engine.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	samples, _, err := trainset.ReadRepoST(data, false)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[float32][5]int{}
	for _, gap := range []float32{10, -10} {
		p := testsupport.ConstProbe(m.Config.Embed, gap)
		p.Model = pipeline.ProbeModelInfo(m, tok)
		file := filepath.Join(t.TempDir(), "const.probe")
		if err := probe.Save(file, p); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runActor(t, "probe", "rate", "--model", tinyModel, "--data", data, "--probe", file,
			"--limit", "4", "--max-tokens", "16", "--threads", "1", "--temperature", "0.6", "--seed", "3", "--retries", "2")
		got := rateLine.FindStringSubmatch(stdout)
		if code != 0 || got == nil {
			t.Fatalf("rate: code %d\n%s\n%s", code, stdout, stderr)
		}
		var n [5]int
		for i := range n {
			n[i], _ = strconv.Atoi(got[i+1])
		}
		counts[gap] = n

		cfg := generate.DefaultConfig
		cfg.Temperature, cfg.Seed, cfg.MaxNewTokens, cfg.Retries = 0.6, 3, 16, 2
		d, err := generate.NewDecoder(m, tok, generate.DecoderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		g, err := generate.NewACToR(d, cfg, noBlocks{}, generate.ACToROptions{Probe: p})
		if err != nil {
			t.Fatal(err)
		}
		var want [5]int
		for _, s := range samples[:4] {
			smp, err := g.Generate(t.Context(), rateTarget(&s), 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			kept := smp.Trace.Attempts[len(smp.Trace.Attempts)-1]
			if smp.Trace.ContextChanges != 0 || smp.Prompt != "\n\n# file path: "+s.Path+"\n\n"+s.Prompt {
				t.Errorf("%s: %d context changes, prompt %q", s.ID, smp.Trace.ContextChanges, smp.Prompt)
			}
			want = [5]int{want[0] + 1, want[1] + kept.Tokens, want[2] + kept.Judged, want[3] + kept.Triggers, want[4] + len(smp.Trace.Attempts) - 1}
		}
		if n != want {
			t.Errorf("probe gap %g: rate reports %v (functions, generated, judged, flagged, regenerated), the generator %v", gap, n, want)
		}
	}
	on, off := counts[10], counts[-10]
	if on[0] != 4 || on[2] == 0 || on[2] >= on[1] || on[3] != on[2] || off[3] != 0 || [3]int(on[:3]) != [3]int(off[:3]) {
		t.Errorf("always-critical probe %v, never-critical probe %v", on, off)
	}
}
