package chart

import (
	"actor/internal/testsupport"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestBarsFitTheData(t *testing.T) {
	groups := []string{"RawPrompt", "RawRAG", "RepoCoder", "RLCoder-style", "ACToR with the shipped probe"}
	b := Bars{Title: "pass@k", YLabel: "%", Groups: groups}
	for k, name := range []string{"pass@1", "pass@3", "pass@5"} {
		s := Series{Name: name}
		for g := range groups {
			v := 1 + float64(g) + float64(k)
			s.Values, s.Lo, s.Hi = append(s.Values, v), append(s.Lo, v-0.5), append(s.Hi, v+0.5)
		}
		b.Series = append(b.Series, s)
	}
	p, _, err := b.Plot()
	if err != nil {
		t.Fatal(err)
	}
	// The highest interval ends at 7.5: the axis ends at a round value a
	// little above, not at 100.
	if p.Y.Min != 0 || p.Y.Max < 7.5*1.2 || p.Y.Max > 12 {
		t.Errorf("value axis [%v, %v] for bars up to 7.5", p.Y.Min, p.Y.Max)
	}
	ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
	if len(ticks) != len(groups) || ticks[4].Label != "ACToR with the\nshipped probe" || ticks[2].Value != 2 {
		t.Errorf("group ticks %+v", ticks)
	}
	// Three bars side by side in a group of width 0.8, centred on it.
	rs := b.rects()
	for i, want := range []float64{-0.8 / 3, 0, 0.8 / 3} {
		r := rs[i] // group by group, series in order
		if r.series != i || math.Abs(r.x-want) > 1e-12 || !r.labelled || r.top != r.hi {
			t.Errorf("bar %d of group 0: %+v, want centre %v", i, r, want)
		}
	}
	out := filepath.Join(t.TempDir(), "bars.png")
	if err := b.Save(out); err != nil {
		t.Fatal(err)
	}
	testsupport.CheckPNG(t, out, 400)
}

func TestStackedBars(t *testing.T) {
	b := Bars{Groups: []string{"a", "b"}, Stacked: true, Series: []Series{
		{Name: "plain", Values: []float64{10, 20}}, {Name: "probe", Values: []float64{2, math.NaN()}}}}
	rs := b.rects()
	// Group a: 0–10 and 10–12 labelled 12; group b: one bar labelled 20.
	if len(rs) != 3 || rs[1].y0 != 10 || rs[1].y1 != 12 || !rs[1].labelled || rs[1].total != 12 || rs[0].labelled ||
		!rs[2].labelled || rs[2].total != 20 {
		t.Errorf("stacked bars %+v", rs)
	}
	if err := (Bars{Groups: []string{"a"}, Series: []Series{{Values: []float64{1, 2}}}}).Save(filepath.Join(t.TempDir(), "x.png")); err == nil ||
		!strings.Contains(err.Error(), "2 values for 1 groups") {
		t.Errorf("mismatched series: %v", err)
	}
}

func TestHeat(t *testing.T) {
	out := filepath.Join(t.TempDir(), "heat.png")
	h := Heat{Title: "pass@1", XLabel: "influence", YLabel: "entropy", X: []string{"0.03", "0.05"}, Y: []string{"0.6", "0.8", "1.0"},
		Values: [][]float64{{1, 2}, {3, math.NaN()}, {5, 6}}}
	if err := h.Save(out); err != nil {
		t.Fatal(err)
	}
	testsupport.CheckPNG(t, out, 200)
	h.Values = h.Values[:2]
	if err := h.Save(out); err == nil {
		t.Error("2 rows for 3 labels: no error")
	}
}

func TestWrapAndNiceCeil(t *testing.T) {
	for in, want := range map[string]string{"ACToR w/o critical-token inference": "ACToR w/o\ncritical-token\ninference",
		"rawrag": "rawrag", "a b c": "a b c"} {
		if got := Wrap(in, wrapWidth); got != want {
			t.Errorf("Wrap(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[float64]float64{4.2: 5, 7.5: 8, 11: 12, 0.031: 0.04, 21: 25, 0: 1, 100: 100, 13: 15} {
		if got := niceCeil(in); math.Abs(got-want) > 1e-12 {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}
