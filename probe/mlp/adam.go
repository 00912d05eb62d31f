package mlp

import "math"

// Adam is torch.optim.Adam (single-tensor path, amsgrad off): weight decay
// is L2 added to the gradient (not AdamW's decoupled decay), the first
// moment is updated with lerp, and the bias corrections are computed in
// float64 as PyTorch does on its Python-float scalars.
type Adam[T Float] struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64
	step                               int
	m, v                               []T
}

// NewAdam returns Adam with PyTorch's defaults (β 0.9, 0.999, ε 1e-8) and
// the given learning rate and weight decay, for n parameters.
func NewAdam[T Float](n int, lr, weightDecay float64) *Adam[T] {
	return &Adam[T]{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: weightDecay, m: make([]T, n), v: make([]T, n)}
}

// Step updates params in place from grad (grad is not modified), on up to
// threads goroutines over disjoint ranges (the result does not depend on it).
func (a *Adam[T]) Step(params, grad []T, threads int) {
	a.step++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.step))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.step))
	c := adamConsts[T]{stepSize: T(a.LR / bc1), bc2Sqrt: T(math.Sqrt(bc2)), wd: T(a.WeightDecay),
		w1: T(1 - a.Beta1), b2: T(a.Beta2), w2: T(1 - a.Beta2), eps: T(a.Eps)}
	parallel(len(params), threads, func(lo, hi int) {
		c.update(params[lo:hi], grad[lo:hi], a.m[lo:hi], a.v[lo:hi])
	})
}

// adamConsts are one step's scalars, already in the parameters' type.
type adamConsts[T Float] struct{ stepSize, bc2Sqrt, wd, w1, b2, w2, eps T }

func (c *adamConsts[T]) update(params, grad, m, v []T) {
	grad, m, v = grad[:len(params)], m[:len(params)], v[:len(params)]
	for i, p := range params {
		g := grad[i]
		if c.wd != 0 {
			g += c.wd * p
		}
		mi := m[i] + c.w1*(g-m[i]) // torch lerp with weight < 0.5
		vi := v[i]*c.b2 + c.w2*g*g
		m[i], v[i] = mi, vi
		denom := T(math.Sqrt(float64(vi)))/c.bc2Sqrt + c.eps
		params[i] = p - c.stepSize*(mi/denom)
	}
}
