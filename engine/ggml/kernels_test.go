package ggml

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	fsggml "github.com/ollama/ollama/fs/ggml"
)

// bothPaths runs f with the AVX2 kernels (when compiled in) and with the
// portable ones.
func bothPaths(t *testing.T, f func(t *testing.T)) {
	saved := useSIMD
	t.Cleanup(func() { useSIMD = saved })
	for _, simd := range []bool{true, false} {
		if simd && !saved {
			continue
		}
		useSIMD = simd
		t.Run(fmt.Sprintf("simd=%v", simd), f)
	}
}

func randomFloats(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out
}

// refAttention is softmax(QKᵀ·scale)·V within each sequence, in float64.
func refAttention(q, k, v []float32, lens []int, heads, hd int, scale float64) []float64 {
	embed := heads * hd
	out := make([]float64, len(q))
	start := 0
	for _, n := range lens {
		for h := range heads {
			for i := range n {
				w := make([]float64, n)
				max := math.Inf(-1)
				for j := range n {
					for d := range hd {
						w[j] += float64(q[(start+i)*embed+h*hd+d]) * float64(k[(start+j)*embed+h*hd+d])
					}
					max = math.Max(max, w[j])
				}
				var sum float64
				for j := range w {
					w[j] = math.Exp((w[j] - max) * scale)
					sum += w[j]
				}
				for j := range n {
					for d := range hd {
						out[(start+i)*embed+h*hd+d] += w[j] / sum * float64(v[(start+j)*embed+h*hd+d])
					}
				}
			}
		}
		start += n
	}
	return out
}

// TestPackedAttention checks the attention kernel against float64 loops
// on ragged sequences (1 token, fewer than a block of 6 rows, lengths on
// and off multiples of 8 and 16) and head sizes that take each path: 32
// (four-vector chunks), 8 (one vector), 40 (both), 12 (portable only).
func TestPackedAttention(t *testing.T) {
	m := loadRandom(t, fsggml.TensorTypeF32, false, Options{Threads: 2})
	lens := []int{1, 3, 5, 8, 13, 16, 17, 40}
	tokens := 0
	for _, l := range lens {
		tokens += l
	}
	bothPaths(t, func(t *testing.T) {
		for _, shape := range [][2]int{{2, 32}, {3, 8}, {1, 40}, {2, 12}} {
			heads, hd := shape[0], shape[1]
			r := rand.New(rand.NewPCG(uint64(heads), uint64(hd)))
			embed := heads * hd
			q, k, v := randomFloats(r, embed*tokens), randomFloats(r, embed*tokens), randomFloats(r, embed*tokens)
			scale := 1 / math.Sqrt(float64(hd))
			var args opArgs
			ctx := m.b.NewContext()
			in := ctx.Input()
			out := packedAttention(ctx, in.FromFloats(q, embed, tokens), in.FromFloats(k, embed, tokens),
				in.FromFloats(v, embed, tokens), args.attention(lens, heads, hd, scale))
			ctx.Forward(out).Compute(out)
			got := out.Floats()
			ctx.Close()
			args.free()
			want := refAttention(q, k, v, lens, heads, hd, scale)
			var worst float64
			for i := range want {
				worst = math.Max(worst, math.Abs(float64(got[i])-want[i]))
			}
			if worst > 2e-6 {
				t.Errorf("heads %d × %d: max |diff| %.2g", heads, hd, worst)
			}
		}
	})
}

// TestGeluBias checks GELU(x + bias) against the exact x·Φ(x) in float64
// over [-12, 12] in steps of 1/64, at extremes and NaN, on rows of 13 (a tail
// shorter than a vector). The bound, 2.5e-7·|x|, is what float32 allows:
// ggml's ½·x·(1 + erff(x/√2)) loses that much to cancellation for
// negative x.
func TestGeluBias(t *testing.T) {
	m := loadRandom(t, fsggml.TensorTypeF32, false, Options{Threads: 2})
	const cols = 13
	var x []float32
	for v := -12.0; v <= 12; v += 1.0 / 64 {
		x = append(x, float32(v))
	}
	x = append(x, 0, 1e-30, -1e-30, 30, -30, 1e4, -1e4, 3e38, -3e38, float32(math.NaN()))
	for len(x)%cols != 0 {
		x = append(x, 0.5)
	}
	bias := make([]float32, cols)
	for i := range bias {
		bias[i] = float32(i%3) - 1 // -1, 0, 1
	}
	bothPaths(t, func(t *testing.T) {
		ctx := m.b.NewContext()
		defer ctx.Close()
		in := ctx.Input()
		out := geluBias(ctx, in.FromFloats(x, cols, len(x)/cols), in.FromFloats(bias, cols))
		ctx.Forward(out).Compute(out)
		got := out.Floats()
		for i, xi := range x {
			v := float64(xi + bias[i%cols]) // the sum is rounded to float32 first, as the kernel does
			want := 0.5 * v * (1 + math.Erf(v/math.Sqrt2))
			if math.IsNaN(v) != math.IsNaN(float64(got[i])) {
				t.Errorf("GELU(%g) = %g", v, got[i])
			}
			if d := math.Abs(float64(got[i]) - want); d > 2.5e-7*math.Abs(v)+1e-37 {
				t.Errorf("GELU(%g) = %g, want %g (|diff| %.2g)", v, got[i], want, d)
			}
		}
	})
}

// TestPackedLinear checks W·x + b, with and without GELU, against float64
// loops: 40 outputs (two and a half panels of 16), k = 600 (three blocks
// of k, the last partial) and 101 input rows (two row blocks, a last tile
// of 5 rows).
func TestPackedLinear(t *testing.T) {
	m := loadRandom(t, fsggml.TensorTypeF32, false, Options{Threads: 2})
	const k, outs, n = 600, 40, 101
	r := rand.New(rand.NewPCG(3, 4))
	w, x, bias := randomFloats(r, k*outs), randomFloats(r, k*n), randomFloats(r, outs)
	wctx := m.b.NewContext()
	defer wctx.Close()
	packed, err := packMatrix(wctx.Input().FromFloats(w, k, outs))
	if err != nil {
		t.Fatal(err)
	}
	defer packed.free()
	bothPaths(t, func(t *testing.T) {
		for _, gelu := range []bool{false, true} {
			var args opArgs
			ctx := m.b.NewContext()
			in := ctx.Input()
			out := args.linear(ctx, packed, in.FromFloats(x, k, n), in.FromFloats(bias, outs), gelu)
			ctx.Forward(out).Compute(out)
			got := out.Floats()
			ctx.Close()
			args.free()
			var worst float64
			for i := range n {
				for o := range outs {
					want := float64(bias[o])
					for j := range k {
						want += float64(w[o*k+j]) * float64(x[i*k+j])
					}
					if gelu {
						want = 0.5 * want * (1 + math.Erf(want/math.Sqrt2))
					}
					worst = math.Max(worst, math.Abs(float64(got[i*outs+o])-want))
				}
			}
			if worst > 2e-4 { // sums of 600 products of N(0,1) values, in float32
				t.Errorf("gelu %v: max |diff| %.2g", gelu, worst)
			}
		}
	})
}
