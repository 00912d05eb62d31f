// Package mlp trains one member of the critical-token ensemble: a
// two-layer perceptron Linear(d→U) → ReLU → Dropout → Linear(U→C) with
// softmax cross-entropy, optimised by Adam with PyTorch's semantics. The
// code is generic over float32 (training) and float64 (gradient checks and
// the PyTorch reference fixture) and parallel over hidden units, which
// keeps every sum in a fixed order: the same seed gives bit-identical
// weights for any number of goroutines.
package mlp

import (
	"math"
	"math/rand/v2"
	"sync"

	"actor/probe/internal/vec"
)

// Float is the element type: float32 or float64.
type Float = vec.Float

// Net holds the parameters of one MLP in one slice, in PyTorch's order and
// layout: W1 (Units×In), B1 (Units), W2 (Out×Units), B2 (Out).
type Net[T Float] struct {
	In, Units, Out int
	Params         []T
}

// NewNet returns a network initialised as torch.nn.Linear does by default
// (kaiming_uniform with a=√5 for weights, which is U(−1/√fan_in, 1/√fan_in),
// and the same bound for biases), drawing W1, B1, W2, B2 in that order.
func NewNet[T Float](in, units, out int, rng *rand.Rand) *Net[T] {
	n := &Net[T]{In: in, Units: units, Out: out, Params: make([]T, units*in+units+out*units+out)}
	fill := func(s []T, fanIn int) {
		bound := 1 / math.Sqrt(float64(fanIn))
		for i := range s {
			s[i] = T((rng.Float64()*2 - 1) * bound)
		}
	}
	fill(n.W1(), in)
	fill(n.B1(), in)
	fill(n.W2(), units)
	fill(n.B2(), units)
	return n
}

// W1 returns the first layer's weights, row j for hidden unit j.
func (n *Net[T]) W1() []T { return n.Params[:n.Units*n.In] }

// B1 returns the first layer's biases.
func (n *Net[T]) B1() []T { o := n.Units * n.In; return n.Params[o : o+n.Units] }

// W2 returns the second layer's weights, row o for output o.
func (n *Net[T]) W2() []T { o := n.Units*n.In + n.Units; return n.Params[o : o+n.Out*n.Units] }

// B2 returns the second layer's biases.
func (n *Net[T]) B2() []T { o := n.Units*n.In + n.Units + n.Out*n.Units; return n.Params[o:] }

// Work is scratch space for batches of up to a fixed size; reuse it.
type Work[T Float] struct {
	act    []T // Units×B, unit-major: activations after ReLU and dropout
	logits []T // B×Out
	dl     []T // B×Out: ∂loss/∂logits
}

func (w *Work[T]) grow(units, out, b int) {
	if cap(w.act) < units*b {
		w.act = make([]T, units*b)
	}
	if cap(w.logits) < b*out {
		w.logits, w.dl = make([]T, b*out), make([]T, b*out)
	}
	w.act, w.logits, w.dl = w.act[:units*b], w.logits[:b*out], w.dl[:b*out]
}

// parallel runs f over [0, n) split into contiguous ranges, one per
// goroutine; each index is handled by exactly one call.
func parallel(n, threads int, f func(lo, hi int)) {
	threads = max(1, min(threads, n))
	if threads == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for g := range threads {
		lo, hi := g*n/threads, (g+1)*n/threads
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}

// hidden computes the activations of units [lo, hi) for a batch x of b rows:
// act[j·b+r] = keep[j·b+r] · ReLU(B1[j] + W1[j]·x[r]) (keep nil: no dropout).
func (n *Net[T]) hidden(x []T, b int, keep []T, act []T, lo, hi int) {
	w1, b1, d := n.W1(), n.B1(), n.In
	for j := lo; j < hi; j++ {
		row := w1[j*d : (j+1)*d]
		for r := range b {
			z := b1[j] + vec.Dot(row, x[r*d:(r+1)*d])
			if z < 0 {
				z = 0
			}
			if keep != nil {
				z *= keep[j*b+r]
			}
			act[j*b+r] = z
		}
	}
}

// output computes logits[r·Out+o] = B2[o] + Σ_j W2[o][j]·act[j·b+r].
func (n *Net[T]) output(act []T, b int, logits []T) {
	w2, b2, u := n.W2(), n.B2(), n.Units
	for r := range b {
		for o := range n.Out {
			s := b2[o]
			row := w2[o*u : (o+1)*u]
			for j, w := range row {
				s += w * act[j*b+r]
			}
			logits[r*n.Out+o] = s
		}
	}
}

// Logits evaluates the network without dropout on b = len(x)/In rows.
func (n *Net[T]) Logits(x []T, w *Work[T], threads int) []T {
	b := len(x) / n.In
	w.grow(n.Units, n.Out, b)
	parallel(n.Units, threads, func(lo, hi int) { n.hidden(x, b, nil, w.act, lo, hi) })
	n.output(w.act, b, w.logits)
	return w.logits
}

// LossGrad runs forward and backward on a batch: x has b = len(y) rows, y
// holds class indices, keep is the dropout scale per unit and row
// (unit-major Units×b; 0 or 1/(1−p); nil for none). It returns the mean
// cross-entropy and overwrites grad (len(Params)) with its gradient.
func (n *Net[T]) LossGrad(x []T, y []int32, keep []T, grad []T, w *Work[T], threads int) float64 {
	b, u, d, out := len(y), n.Units, n.In, n.Out
	w.grow(u, out, b)
	parallel(u, threads, func(lo, hi int) { n.hidden(x, b, keep, w.act, lo, hi) })
	n.output(w.act, b, w.logits)

	// Softmax cross-entropy, mean over the batch.
	var loss float64
	for r := range b {
		l := w.logits[r*out : (r+1)*out]
		m := l[0]
		for _, v := range l {
			m = max(m, v)
		}
		var z float64
		for _, v := range l {
			z += math.Exp(float64(v - m))
		}
		logZ := float64(m) + math.Log(z)
		loss -= float64(l[y[r]]) - logZ
		for o, v := range l {
			g := math.Exp(float64(v) - logZ)
			if int32(o) == y[r] {
				g--
			}
			w.dl[r*out+o] = T(g / float64(b))
		}
	}

	gW1 := grad[:u*d]
	gB1 := grad[u*d : u*d+u]
	gW2 := grad[u*d+u : u*d+u+out*u]
	gB2 := grad[u*d+u+out*u:]
	w2 := n.W2()
	for o := range out {
		var s T
		for r := range b {
			s += w.dl[r*out+o]
		}
		gB2[o] = s
	}
	parallel(u, threads, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			act := w.act[j*b : (j+1)*b]
			for o := range out {
				var s T
				for r := range b {
					s += w.dl[r*out+o] * act[r]
				}
				gW2[o*u+j] = s
			}
			row := gW1[j*d : (j+1)*d]
			clear(row)
			var sb T
			for r := range b {
				if act[r] == 0 { // ReLU inactive or dropped: no gradient flows
					continue
				}
				var da T
				for o := range out {
					da += w.dl[r*out+o] * w2[o*u+j]
				}
				if keep != nil {
					da *= keep[j*b+r]
				}
				sb += da
				vec.Axpy(da, x[r*d:(r+1)*d], row)
			}
			gB1[j] = sb
		}
	})
	return loss / float64(b)
}
