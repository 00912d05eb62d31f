package vec

import (
	"math"
	"testing"
)

func TestDotAxpy(t *testing.T) {
	for n := 0; n < 11; n++ {
		a := make([]float64, n)
		b := make([]float64, n+2)
		var want float64
		for i := range a {
			a[i] = float64(i) + 0.5
			b[i] = float64(2*i) - 3
			want += a[i] * b[i]
		}
		if got := Dot(a, b); math.Abs(got-want) > 1e-12 {
			t.Errorf("n=%d: dot %v want %v", n, got, want)
		}
		y := append([]float64(nil), b...)
		Axpy(2, a, y)
		for i := range y {
			w := b[i]
			if i < n {
				w += 2 * a[i]
			}
			if y[i] != w {
				t.Errorf("n=%d: axpy y[%d]=%v want %v", n, i, y[i], w)
			}
		}
	}
}

func BenchmarkDot576(b *testing.B) {
	x := make([]float32, 576)
	y := make([]float32, 576)
	for i := range x {
		x[i], y[i] = float32(i)*1e-3, 1-float32(i)*1e-3
	}
	var s float32
	for b.Loop() {
		s += Dot(x, y)
	}
	_ = s
	b.SetBytes(576 * 8)
}
