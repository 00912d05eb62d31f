// Package chart draws the benchmark figures as PNG files that stay
// readable: one labelled group per method (labels wrapped, and slanted when
// there are many), each bar's value printed above it, the value axis
// fitted to the data instead of 0–100, 95 % intervals as error bars, and
// grids as heatmaps with the values in the cells.
package chart

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette colours the series in order.
var Palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

// Series is one bar in every group.
type Series struct {
	Name   string
	Values []float64 // one per group; NaN: no bar
	// Lo and Hi bound each value's interval (nil: no error bars).
	Lo, Hi []float64
}

// Bars is a grouped (or stacked) bar chart.
type Bars struct {
	Title, YLabel string
	// Groups label the groups along the x axis (one method each).
	Groups []string
	Series []Series
	// Stacked stacks the series of a group into one bar labelled with
	// their total, instead of placing them side by side.
	Stacked bool
	// Format prints a bar's value ("%.1f" when empty).
	Format string
}

// wrapWidth is the most characters of a group label's line.
const wrapWidth = 16

// Save writes the chart as a PNG to path.
func (b Bars) Save(path string) error {
	p, w, err := b.Plot()
	if err != nil {
		return err
	}
	return p.Save(w, 4.5*vg.Inch, path)
}

// Plot builds the chart and the width it needs.
func (b Bars) Plot() (*plot.Plot, vg.Length, error) {
	if err := b.check(); err != nil {
		return nil, 0, err
	}
	p := plot.New()
	p.Title.Text = b.Title
	p.Y.Label.Text = b.YLabel
	format := b.Format
	if format == "" {
		format = "%.1f"
	}
	rs := b.rects()
	top := 0.0
	for _, r := range rs {
		top = math.Max(top, r.top)
	}
	for s := range b.Series {
		sb := &seriesBars{color: Palette[s%len(Palette)]}
		for _, r := range rs {
			if r.series == s {
				sb.rects = append(sb.rects, r)
			}
		}
		p.Add(sb)
		p.Legend.Add(b.Series[s].Name, sb)
		if eb := b.errorBars(rs, s); eb != nil {
			p.Add(eb)
		}
	}
	// The values last, above the bars and their error bars.
	var at plotter.XYLabels
	for _, r := range rs {
		if r.labelled {
			at.XYs = append(at.XYs, plotter.XY{X: r.x, Y: r.top})
			at.Labels = append(at.Labels, fmt.Sprintf(format, r.total))
		}
	}
	lab, err := plotter.NewLabels(at)
	if err != nil {
		return nil, 0, err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = draw.XCenter, draw.YBottom
		lab.TextStyle[i].Font.Size = vg.Points(8)
	}
	lab.Offset.Y = vg.Points(2)
	p.Add(lab)
	if len(b.Series) == 1 {
		p.Legend = plot.NewLegend()
	}
	p.Legend.Top, p.Legend.Left = true, true
	// Headroom for the value labels and the legend.
	p.Y.Min, p.Y.Max = 0, niceCeil(top*(1.12+0.06*float64(len(b.Series))))
	p.X.Min, p.X.Max = -0.6, float64(len(b.Groups))-0.4
	p.X.Tick.Marker = groupTicks(b.Groups)
	if len(b.Groups) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	w := vg.Length(max(6, 1.1*float64(len(b.Groups))*math.Sqrt(float64(max(1, b.perGroup()))))) * vg.Inch
	return p, w, nil
}

// check reports a chart that cannot be drawn.
func (b Bars) check() error {
	if len(b.Groups) == 0 || len(b.Series) == 0 {
		return errors.New("chart: no bars to draw")
	}
	for _, s := range b.Series {
		if len(s.Values) != len(b.Groups) || (s.Lo != nil && len(s.Lo) != len(s.Values)) || (s.Hi != nil && len(s.Hi) != len(s.Values)) {
			return fmt.Errorf("chart: series %q has %d values for %d groups", s.Name, len(s.Values), len(b.Groups))
		}
	}
	return nil
}

// perGroup is the number of bars side by side in a group.
func (b Bars) perGroup() int {
	if b.Stacked {
		return 1
	}
	return len(b.Series)
}

// rect is one drawn bar in data coordinates.
type rect struct {
	series      int
	x, half     float64 // centre and half width
	y0, y1      float64 // bottom and top of the bar
	top         float64 // above the bar and its error bar
	total       float64 // the printed value
	labelled    bool    // this bar carries the printed value
	lo, hi      float64
	hasInterval bool
}

// rects places every bar: side by side within 80 % of a group's unit
// width, or stacked.
func (b Bars) rects() []rect {
	var out []rect
	per := b.perGroup()
	half := 0.4 / float64(per)
	for g := range b.Groups {
		base, start := 0.0, len(out)
		for s, ser := range b.Series {
			v := ser.Values[g]
			if math.IsNaN(v) {
				continue
			}
			r := rect{series: s, x: float64(g), half: half, y0: 0, y1: v, total: v}
			if b.Stacked {
				r.y0, r.y1 = base, base+v
				base += v
			} else {
				r.x += (float64(s) - float64(per-1)/2) * 2 * half
				r.labelled = true
			}
			if ser.Lo != nil && !math.IsNaN(ser.Lo[g]) {
				r.lo, r.hi, r.hasInterval = ser.Lo[g], ser.Hi[g], true
			}
			r.top = math.Max(r.y1, r.hi)
			out = append(out, r)
		}
		if b.Stacked && len(out) > start {
			last := &out[len(out)-1]
			last.labelled, last.total, last.top = true, base, math.Max(base, last.top)
		}
	}
	return out
}

// errorBars returns series s's interval bars, or nil.
func (b Bars) errorBars(rs []rect, s int) plot.Plotter {
	var pts errPoints
	for _, r := range rs {
		if r.series == s && r.hasInterval {
			pts = append(pts, r)
		}
	}
	if len(pts) == 0 {
		return nil
	}
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil
	}
	eb.CapWidth = vg.Points(4)
	return eb
}

// errPoints are bars with intervals as plotter.XYer and YErrorer.
type errPoints []rect

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y1 }
func (e errPoints) YError(i int) (float64, float64) { return e[i].y1 - e[i].lo, e[i].hi - e[i].y1 }

// seriesBars draws one series' bars and its legend swatch.
type seriesBars struct {
	rects []rect
	color color.Color
}

// Plot draws the bars.
func (s *seriesBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, r := range s.rects {
		x0, x1 := trX(r.x-r.half), trX(r.x+r.half)
		y0, y1 := trY(r.y0), trY(r.y1)
		c.FillPolygon(s.color, c.ClipPolygonY([]vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}))
	}
}

// DataRange spans the bars.
func (s *seriesBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), 0, 0
	for _, r := range s.rects {
		xmin, xmax, ymax = math.Min(xmin, r.x-r.half), math.Max(xmax, r.x+r.half), math.Max(ymax, r.top)
	}
	return
}

// Thumbnail draws the legend swatch.
func (s *seriesBars) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.color, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}})
}

// groupTicks labels the group centres with the wrapped group names.
type groupTicks []string

// Ticks implements plot.Ticker.
func (g groupTicks) Ticks(min, max float64) []plot.Tick {
	out := make([]plot.Tick, len(g))
	for i, name := range g {
		out[i] = plot.Tick{Value: float64(i), Label: Wrap(name, wrapWidth)}
	}
	return out
}

// Wrap breaks s at spaces into lines of at most width characters (a longer
// word keeps its own line).
func Wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// niceCeil rounds v up to 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a
// power of ten (1 for v ≤ 0): an axis end close above the data.
func niceCeil(v float64) float64 {
	if !(v > 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
