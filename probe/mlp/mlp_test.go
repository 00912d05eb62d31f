package mlp

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// Central finite differences of the loss agree with LossGrad for every
// parameter (float64, with a dropout mask and a batch of 4).
func TestGradientFiniteDifferences(t *testing.T) {
	const d, u, b = 7, 5, 4
	rng := rand.New(rand.NewPCG(1, 2))
	net := NewNet[float64](d, u, 2, rng)
	x := make([]float64, b*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	y := []int32{0, 1, 1, 0}
	keep := make([]float64, u*b)
	for i := range keep {
		keep[i] = 1 / 0.9
	}
	keep[3], keep[11] = 0, 0
	var w Work[float64]
	grad := make([]float64, len(net.Params))
	net.LossGrad(x, y, keep, grad, &w, 1)
	tmp := make([]float64, len(net.Params))
	const h = 1e-6
	for i := range net.Params {
		p := net.Params[i]
		net.Params[i] = p + h
		lp := net.LossGrad(x, y, keep, tmp, &w, 1)
		net.Params[i] = p - h
		lm := net.LossGrad(x, y, keep, tmp, &w, 1)
		net.Params[i] = p
		fd := (lp - lm) / (2 * h)
		if math.Abs(fd-grad[i]) > 1e-7*math.Max(1, math.Abs(fd)) {
			t.Errorf("param %d: analytic %.10g, finite difference %.10g", i, grad[i], fd)
		}
	}
}

type fixture struct {
	In, Units, Out, Batch int
	LR                    float64 `json:"lr"`
	WeightDecay           float64 `json:"weight_decay"`
	Init                  [][]float64
	Steps                 []struct {
		X           []float64
		Y           []int32
		Mask        []float64
		Loss        float64
		Grads       [][]float64
		ParamsAfter [][]float64 `json:"params_after"`
	}
	Plateau struct {
		Patience int
		Factor   float64
		Accs     []float64
		Lrs      []float64
	}
}

func loadFixture(t *testing.T) fixture {
	b, err := os.ReadFile("testdata/torch_fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// Loss, gradients and three Adam steps match torch.optim.Adam (float64).
func TestMatchesTorchAdam(t *testing.T) {
	f := loadFixture(t)
	net := &Net[float64]{In: f.In, Units: f.Units, Out: f.Out, Params: slices.Concat(f.Init...)}
	opt := NewAdam[float64](len(net.Params), f.LR, f.WeightDecay)
	grad := make([]float64, len(net.Params))
	var w Work[float64]
	for s, st := range f.Steps {
		// torch's mask is batch×units; ours is unit-major.
		keep := make([]float64, f.Units*f.Batch)
		for r := range f.Batch {
			for j := range f.Units {
				keep[j*f.Batch+r] = st.Mask[r*f.Units+j]
			}
		}
		loss := net.LossGrad(st.X, st.Y, keep, grad, &w, 2)
		if math.Abs(loss-st.Loss) > 1e-13 {
			t.Errorf("step %d: loss %.17g, torch %.17g", s, loss, st.Loss)
		}
		for i, want := range slices.Concat(st.Grads...) {
			if math.Abs(grad[i]-want) > 1e-14 {
				t.Errorf("step %d: grad %d = %.17g, torch %.17g", s, i, grad[i], want)
			}
		}
		opt.Step(net.Params, grad, 3)
		for i, want := range slices.Concat(st.ParamsAfter...) {
			if math.Abs(net.Params[i]-want) > 1e-14 {
				t.Errorf("step %d: param %d = %.17g, torch %.17g", s, i, net.Params[i], want)
			}
		}
	}
}

// The learning-rate rule reproduces torch's ReduceLROnPlateau.
func TestPlateauMatchesTorch(t *testing.T) {
	f := loadFixture(t)
	p := newPlateau(f.Plateau.Patience)
	lr := 1.0
	for i, a := range f.Plateau.Accs {
		if p.step(a) {
			lr *= f.Plateau.Factor
		}
		if lr != f.Plateau.Lrs[i] {
			t.Errorf("epoch %d (acc %v): lr %v, torch %v", i, a, lr, f.Plateau.Lrs[i])
		}
	}
}

// Goroutines over hidden units do not change a single bit.
func TestLossGradThreadsBitIdentical(t *testing.T) {
	const d, u, b = 33, 29, 9
	rng := rand.New(rand.NewPCG(5, 6))
	net := NewNet[float32](d, u, 2, rng)
	x := make([]float32, b*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y := []int32{0, 1, 1, 0, 1, 0, 0, 1, 1}
	var ref []float32
	for _, th := range []int{1, 2, 3, 8, 64} {
		g := make([]float32, len(net.Params))
		var w Work[float32]
		net.LossGrad(x, y, nil, g, &w, th)
		if ref == nil {
			ref = g
			continue
		}
		for i := range g {
			if math.Float32bits(g[i]) != math.Float32bits(ref[i]) {
				t.Fatalf("threads %d: grad %d differs", th, i)
			}
		}
	}
}

// separable draws two unit Gaussian clouds whose centres are 6σ apart
// along a fixed random direction (the same for every seed).
func separable(n, d int, seed uint64) Data {
	dirRng := rand.New(rand.NewPCG(0, 0))
	rng := rand.New(rand.NewPCG(seed, 9))
	dir := make([]float64, d)
	var norm float64
	for i := range dir {
		dir[i] = dirRng.NormFloat64()
		norm += dir[i] * dir[i]
	}
	var data Data
	for r := range n {
		cls := int32(r % 2)
		for i := range d {
			v := rng.NormFloat64() + (float64(cls)*2-1)*3*dir[i]/math.Sqrt(norm)
			data.X = append(data.X, float32(v))
		}
		data.Y = append(data.Y, cls)
	}
	return data
}

func smallConfig() Config {
	c := DefaultConfig()
	c.Units, c.Epochs, c.LR = 64, 15, 1e-3
	return c
}

func TestSyntheticSeparable(t *testing.T) {
	const d = 48
	tr, va := separable(1600, d, 1), separable(400, d, 2)
	res, err := Train(smallConfig(), d, tr, va, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("best epoch %d of %d: val %+v", res.BestEpoch, res.Epochs, res.Val)
	if res.Val.Accuracy <= 0.99 {
		t.Errorf("validation accuracy %.4f, want > 0.99", res.Val.Accuracy)
	}
	if got := Evaluate(res.Net, va, 1); got != res.Val {
		t.Errorf("re-evaluated best net %+v, recorded %+v", got, res.Val)
	}
}

// Same seed → bit-identical weights, whatever the thread count; another
// seed → other weights.
func TestTrainDeterministic(t *testing.T) {
	const d = 16
	tr, va := separable(300, d, 3), separable(100, d, 4)
	run := func(seed uint64, threads int) []float32 {
		c := smallConfig()
		c.Epochs, c.Seed, c.Threads = 4, seed, threads
		res, err := Train(c, d, tr, va, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Net.Params
	}
	a, b, c := run(7, 1), run(7, 2), run(8, 1)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("param %d differs between 1 and 2 threads", i)
		}
	}
	if slices.Equal(a, c) {
		t.Error("different seeds gave identical weights")
	}
}

func TestTrainErrors(t *testing.T) {
	good := separable(10, 4, 1)
	bad := []struct {
		cfg    Config
		tr, va Data
	}{
		{smallConfig(), Data{}, good},
		{smallConfig(), good, Data{X: good.X[:4], Y: good.Y}},
		{smallConfig(), Data{X: make([]float32, 4), Y: []int32{2}}, good},
		{Config{Units: 0, Batch: 1, Epochs: 1, LR: 1, LRFactor: .5, StopAfter: 1}, good, good},
	}
	for i, c := range bad {
		if _, err := Train(c.cfg, 4, c.tr, c.va, nil); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}

// BenchmarkTrainStep times one batch of 32 (forward, backward, Adam) at the
// hidden sizes of SmolLM2-135M (576) and Qwen2.5-Coder-1.5B (1536).
func BenchmarkStepD576(b *testing.B)  { benchStep(b, 576, 1) }
func BenchmarkStepD1536(b *testing.B) { benchStep(b, 1536, 1) }
func BenchmarkStepD576T2(b *testing.B) {
	benchStep(b, 576, 2)
}

func benchStep(b *testing.B, d, threads int) {
	rng := rand.New(rand.NewPCG(1, 1))
	net := NewNet[float32](d, 512, 2, rng)
	opt := NewAdam[float32](len(net.Params), 1e-4, 1e-4)
	x := make([]float32, 32*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y := make([]int32, 32)
	for i := range y {
		y[i] = int32(i % 2)
	}
	grad := make([]float32, len(net.Params))
	var w Work[float32]
	for b.Loop() {
		net.LossGrad(x, y, nil, grad, &w, threads)
		opt.Step(net.Params, grad, threads)
	}
	b.ReportMetric(32*float64(b.N)/b.Elapsed().Seconds(), "examples/s")
}

// BenchmarkTrainD576 and BenchmarkTrainD1536 time whole epochs (batches,
// Adam, validation) of one member with the paper's recipe on one thread.
func BenchmarkTrainD576(b *testing.B)  { benchTrain(b, 576) }
func BenchmarkTrainD1536(b *testing.B) { benchTrain(b, 1536) }

func benchTrain(b *testing.B, d int) {
	tr, va := separable(1024, d, 1), separable(256, d, 2)
	c := DefaultConfig()
	c.Epochs = 2
	var n int
	for b.Loop() {
		res, err := Train(c, d, tr, va, nil)
		if err != nil {
			b.Fatal(err)
		}
		n += res.Epochs * len(tr.Y)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "examples/s")
}
