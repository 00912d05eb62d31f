package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"actor/bench/results"
)

// barColors are the bars of pass@1, pass@3 and pass@5.
var barColors = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// Chart writes a PNG bar chart of pass@1/3/5 (in %) for every row to path.
func Chart(rows []Row, path string) error {
	if len(rows) == 0 {
		return fmt.Errorf("no results to chart")
	}
	p := plot.New()
	p.Title.Text = "pass@k by method"
	p.Y.Label.Text = "pass@k (%)"
	p.Y.Min, p.Y.Max = 0, 120 // headroom for the legend
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Benchmark + "\n" + r.Label()
	}
	width := vg.Points(14)
	for i, k := range results.Ks {
		vals := make(plotter.Values, len(rows))
		for j, r := range rows {
			vals[j] = 100 * r.PassAt[k] // undefined pass@k draws as 0
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return err
		}
		bars.Color = barColors[i]
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(i-1) * width
		p.Add(bars)
		p.Legend.Add(fmt.Sprintf("pass@%d", k), bars)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(rows))-0.4
	w := vg.Length(max(6, 1.6*float64(len(rows)))) * vg.Inch
	return p.Save(w, 4*vg.Inch, path)
}
