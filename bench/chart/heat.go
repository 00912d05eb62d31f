package chart

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heat is a grid of values drawn as coloured cells with the value printed
// in each (a missing value, NaN, is a grey cell marked "–").
type Heat struct {
	Title, XLabel, YLabel string
	// X and Y label the columns and rows.
	X, Y []string
	// Values[row][column].
	Values [][]float64
	// Format prints a cell ("%.1f" when empty).
	Format string
}

// Save writes the heatmap as a PNG to path.
func (h Heat) Save(path string) error {
	if len(h.X) == 0 || len(h.Y) == 0 || len(h.Values) != len(h.Y) {
		return errors.New("chart: heatmap needs rows and columns")
	}
	for _, row := range h.Values {
		if len(row) != len(h.X) {
			return fmt.Errorf("chart: heatmap row of %d values for %d columns", len(row), len(h.X))
		}
	}
	format := h.Format
	if format == "" {
		format = "%.1f"
	}
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = h.Title, h.XLabel, h.YLabel
	pal := moreland.SmoothBlueRed()
	hm := plotter.NewHeatMap(grid(h.Values), pal.Palette(64))
	if math.IsInf(hm.Min, 1) { // every cell missing
		hm.Min, hm.Max = 0, 1
	}
	if hm.Min == hm.Max {
		hm.Min, hm.Max = hm.Min-1, hm.Max+1
	}
	hm.NaN = color.White
	p.Add(hm)
	var at plotter.XYLabels
	for r, row := range h.Values {
		for c, v := range row {
			s := "–"
			if !math.IsNaN(v) {
				s = fmt.Sprintf(format, v)
			}
			at.XYs = append(at.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			at.Labels = append(at.Labels, s)
		}
	}
	lab, err := plotter.NewLabels(at)
	if err != nil {
		return err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		lab.TextStyle[i].Font.Size = vg.Points(10)
		lab.TextStyle[i].Color = textOn(hm, at.XYs[i])
	}
	p.Add(lab)
	p.X.Tick.Marker, p.Y.Tick.Marker = groupTicks(h.X), groupTicks(h.Y)
	p.X.Min, p.X.Max = -0.5, float64(len(h.X))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(h.Y))-0.5
	side := vg.Length(1+0.9*float64(max(len(h.X), len(h.Y)))) * vg.Inch
	return p.Save(side+vg.Inch, side, path)
}

// grid is a plotter.GridXYZ over values[row][column] with unit cells at
// integer coordinates.
type grid [][]float64

func (g grid) Dims() (c, r int)   { return len(g[0]), len(g) }
func (g grid) Z(c, r int) float64 { return g[r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// textOn is black, or white on a dark cell.
func textOn(hm *plotter.HeatMap, at plotter.XY) color.Color {
	v := hm.GridXYZ.Z(int(at.X), int(at.Y))
	if math.IsNaN(v) {
		return color.Black
	}
	cs := hm.Palette.Colors()
	i := int(math.Round((v - hm.Min) / (hm.Max - hm.Min) * float64(len(cs)-1)))
	r, g, b, _ := cs[max(0, min(len(cs)-1, i))].RGBA()
	if 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) < 0.5*0xffff {
		return color.White
	}
	return color.Black
}
