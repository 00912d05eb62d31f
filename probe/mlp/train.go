package mlp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Config is one member's training recipe (METHOD.md §5 and the
// authors' train.py).
type Config struct {
	Units       int     `json:"units"`        // hidden units, 512
	Dropout     float64 `json:"dropout"`      // 0.1
	LR          float64 `json:"lr"`           // Adam learning rate, 1e-4
	WeightDecay float64 `json:"weight_decay"` // L2 added to the gradient, 1e-4
	Batch       int     `json:"batch"`        // 32
	Epochs      int     `json:"epochs"`       // at most 50
	// LRPatience and LRFactor are torch's ReduceLROnPlateau(mode="max",
	// factor=0.5, patience=10) on validation accuracy: the learning rate is
	// multiplied by LRFactor once more than LRPatience epochs in a row did
	// not improve the best accuracy by a relative 1e-4.
	LRPatience int     `json:"lr_patience"`
	LRFactor   float64 `json:"lr_factor"`
	// StopAfter ends training after this many epochs in a row without a new
	// best validation accuracy (20). The weights kept are those of the best
	// validation accuracy, ties going to the lower validation loss.
	StopAfter int    `json:"stop_after"`
	Seed      uint64 `json:"seed"`
	Threads   int    `json:"-"` // goroutines over hidden units; no effect on results
}

// DefaultConfig returns the paper's recipe.
func DefaultConfig() Config {
	return Config{Units: 512, Dropout: 0.1, LR: 1e-4, WeightDecay: 1e-4, Batch: 32, Epochs: 50,
		LRPatience: 10, LRFactor: 0.5, StopAfter: 20, Seed: 42, Threads: 1}
}

func (c Config) validate() error {
	switch {
	case c.Units < 1 || c.Batch < 1 || c.Epochs < 1:
		return fmt.Errorf("training: units %d, batch %d and epochs %d must be positive", c.Units, c.Batch, c.Epochs)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("training: dropout %v outside [0, 1)", c.Dropout)
	case !(c.LR > 0) || !(c.WeightDecay >= 0) || !(c.LRFactor > 0 && c.LRFactor <= 1):
		return fmt.Errorf("training: lr %v, weight decay %v or lr factor %v out of range", c.LR, c.WeightDecay, c.LRFactor)
	case c.LRPatience < 0 || c.StopAfter < 1:
		return fmt.Errorf("training: lr patience %d must be ≥ 0 and stop-after %d ≥ 1", c.LRPatience, c.StopAfter)
	}
	return nil
}

// Data is a labelled set: row r of X (d values) has class Y[r] (1 =
// critical, 0 = not).
type Data struct {
	X []float32
	Y []int32
}

// Metrics summarises predictions (argmax of the logits) on a set, with
// precision and recall for class 1 (critical).
type Metrics struct {
	N         int     `json:"n"`
	Loss      float64 `json:"loss"`
	Accuracy  float64 `json:"accuracy"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	TN        int     `json:"tn"`
	FN        int     `json:"fn"`
}

// Add counts one prediction (1 = critical) of a row of class y.
func (m *Metrics) Add(pred, y int32) {
	m.N++
	switch {
	case pred == 1 && y == 1:
		m.TP++
	case pred == 1:
		m.FP++
	case y == 1:
		m.FN++
	default:
		m.TN++
	}
}

// Finish turns the counts into rates (Loss becomes the mean).
func (m *Metrics) Finish() {
	if m.N == 0 {
		return
	}
	m.Loss /= float64(m.N)
	m.Accuracy = float64(m.TP+m.TN) / float64(m.N)
	if m.TP+m.FP > 0 {
		m.Precision = float64(m.TP) / float64(m.TP+m.FP)
	}
	if m.TP+m.FN > 0 {
		m.Recall = float64(m.TP) / float64(m.TP+m.FN)
	}
	if m.Precision+m.Recall > 0 {
		m.F1 = 2 * m.Precision * m.Recall / (m.Precision + m.Recall)
	}
}

// score adds each row's argmax prediction and cross-entropy to m.
func score(m *Metrics, logits []float32, y []int32, out int) {
	for r, cls := range y {
		l := logits[r*out : (r+1)*out]
		pred := int32(0)
		mx := l[0]
		for o, v := range l {
			if v > mx {
				mx, pred = v, int32(o)
			}
		}
		var z float64
		for _, v := range l {
			z += math.Exp(float64(v - mx))
		}
		m.Loss += float64(mx) + math.Log(z) - float64(l[cls])
		m.Add(pred, cls)
	}
}

// Evaluate scores net on data without dropout.
func Evaluate(net *Net[float32], data Data, threads int) Metrics {
	var m Metrics
	var w Work[float32]
	d := net.In
	const chunk = 256
	for lo := 0; lo < len(data.Y); lo += chunk {
		hi := min(lo+chunk, len(data.Y))
		score(&m, net.Logits(data.X[lo*d:hi*d], &w, threads), data.Y[lo:hi], net.Out)
	}
	m.Finish()
	return m
}

// Epoch is one line of the training log.
type Epoch struct {
	Epoch int     `json:"epoch"`
	LR    float64 `json:"lr"`
	Train Metrics `json:"train"` // with dropout, as the batches ran
	Val   Metrics `json:"val"`
}

// Result is a trained member: the weights of its best epoch.
type Result struct {
	Net       *Net[float32] `json:"-"`
	BestEpoch int           `json:"best_epoch"`
	Epochs    int           `json:"epochs"` // epochs run
	Val       Metrics       `json:"val"`    // at the best epoch
	Train     Metrics       `json:"train"`  // at the best epoch (with dropout)
	FinalLR   float64       `json:"final_lr"`
	History   []Epoch       `json:"-"`
}

// Train trains one member on rows of d values. progress, if not nil, is
// called after every epoch. The result depends only on cfg (without
// Threads) and the data.
func Train(cfg Config, d int, train, val Data, progress func(Epoch)) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	for _, s := range []struct {
		name string
		data Data
	}{{"training", train}, {"validation", val}} {
		if len(s.data.Y) == 0 {
			return nil, fmt.Errorf("training: empty %s set", s.name)
		}
		if len(s.data.X) != len(s.data.Y)*d {
			return nil, fmt.Errorf("training: %s set has %d values for %d rows of %d", s.name, len(s.data.X), len(s.data.Y), d)
		}
		for _, y := range s.data.Y {
			if y != 0 && y != 1 {
				return nil, errors.New("training: labels must be 0 or 1")
			}
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	net := NewNet[float32](d, cfg.Units, 2, rng)
	opt := NewAdam[float32](len(net.Params), cfg.LR, cfg.WeightDecay)
	grad := make([]float32, len(net.Params))
	var work Work[float32]

	n := len(train.Y)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	xb := make([]float32, cfg.Batch*d)
	yb := make([]int32, cfg.Batch)
	var keep []float32
	if cfg.Dropout > 0 {
		keep = make([]float32, cfg.Units*cfg.Batch)
	}
	scale := float32(1) / float32(1-cfg.Dropout)

	res := &Result{BestEpoch: -1}
	bestAcc := -1.0
	sched := newPlateau(cfg.LRPatience)
	since := 0
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		var tm Metrics
		for lo := 0; lo < n; lo += cfg.Batch {
			b := min(cfg.Batch, n-lo)
			for r := range b {
				src := perm[lo+r]
				copy(xb[r*d:(r+1)*d], train.X[src*d:(src+1)*d])
				yb[r] = train.Y[src]
			}
			var k []float32
			if keep != nil {
				k = keep[:cfg.Units*b]
				for i := range k {
					if rng.Float64() < cfg.Dropout {
						k[i] = 0
					} else {
						k[i] = scale
					}
				}
			}
			net.LossGrad(xb[:b*d], yb[:b], k, grad, &work, cfg.Threads)
			score(&tm, work.logits, yb[:b], 2)
			opt.Step(net.Params, grad, cfg.Threads)
		}
		tm.Finish()
		ep := Epoch{Epoch: epoch, LR: opt.LR, Train: tm, Val: Evaluate(net, val, cfg.Threads)}
		res.History = append(res.History, ep)
		res.Epochs = epoch
		if progress != nil {
			progress(ep)
		}
		acc := ep.Val.Accuracy
		if sched.step(acc) {
			opt.LR *= cfg.LRFactor
		}
		// Keep the best accuracy; among equal accuracies the lower loss (the
		// authors keep the first, which on easy data is a barely trained
		// epoch whose p(critical) seldom clears the 0.7 unanimity bar).
		if acc > bestAcc || (acc == bestAcc && ep.Val.Loss < res.Val.Loss) {
			res.Net = &Net[float32]{In: d, Units: cfg.Units, Out: 2, Params: slices.Clone(net.Params)}
			res.BestEpoch, res.Val, res.Train = epoch, ep.Val, ep.Train
		}
		if acc > bestAcc {
			bestAcc, since = acc, 0
		} else if since++; since >= cfg.StopAfter {
			break
		}
	}
	res.FinalLR = opt.LR
	return res, nil
}

// plateau is torch's ReduceLROnPlateau(mode="max", threshold=1e-4,
// threshold_mode="rel", cooldown=0) decision rule.
type plateau struct {
	best          float64
	bad, patience int
}

func newPlateau(patience int) *plateau { return &plateau{best: math.Inf(-1), patience: patience} }

// step records one epoch's metric and reports whether to reduce the rate.
func (p *plateau) step(v float64) bool {
	if v > p.best*(1+1e-4) {
		p.best, p.bad = v, 0
		return false
	}
	p.bad++
	if p.bad > p.patience {
		p.bad = 0
		return true
	}
	return false
}
