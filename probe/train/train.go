// Package train turns a labels directory into a trained probe: it labels
// tokens under the chosen rules, balances the classes by self-information,
// splits positives and negatives into disjoint chunks (one per member, each
// split 80/20 into training and validation), trains the members and records
// their validation metrics in the probe file.
package train

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"actor/probe"
	"actor/probe/critical"
	"actor/probe/labelstore"
	"actor/probe/mlp"
)

// Balance keeps every positive and, of the negatives, the len(pos) with the
// highest self-information (ties: earlier token first), as the paper's
// label balance. It returns token indices, each list ascending.
func Balance(positive []bool, selfInfo []float64) (pos, neg []int) {
	var negs []int
	for i, p := range positive {
		if p {
			pos = append(pos, i)
		} else {
			negs = append(negs, i)
		}
	}
	slices.SortStableFunc(negs, func(a, b int) int { return cmp.Compare(selfInfo[b], selfInfo[a]) })
	neg = slices.Clone(negs[:min(len(pos), len(negs))])
	slices.Sort(neg)
	return pos, neg
}

// MemberSplit is the data of one member, as token indices.
type MemberSplit struct {
	TrainPos, TrainNeg, ValPos, ValNeg []int
}

// Split shuffles positives and negatives (each with seed), cuts each into
// members disjoint chunks whose sizes differ by at most one (numpy's
// array_split), and splits every chunk into the first trainFrac (rounded
// down) for training and the rest for validation after a second shuffle
// seeded seed+member, as the authors' train.py.
func Split(pos, neg []int, members int, seed uint64, trainFrac float64) ([]MemberSplit, error) {
	if members < 1 {
		return nil, fmt.Errorf("split: %d members", members)
	}
	if !(trainFrac > 0 && trainFrac < 1) {
		return nil, fmt.Errorf("split: training fraction %v outside (0, 1)", trainFrac)
	}
	shuffled := func(s []int, seed uint64) []int {
		s = slices.Clone(s)
		r := rand.New(rand.NewPCG(seed, 0))
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		return s
	}
	chunk := func(s []int, i int) []int {
		n, k := len(s), members
		size, extra := n/k, n%k
		lo := i*size + min(i, extra)
		hi := lo + size
		if i < extra {
			hi++
		}
		return s[lo:hi]
	}
	p, q := shuffled(pos, seed), shuffled(neg, seed)
	out := make([]MemberSplit, members)
	for i := range out {
		cp := shuffled(chunk(p, i), seed+uint64(i))
		cn := shuffled(chunk(q, i), seed+uint64(i))
		np, nn := int(trainFrac*float64(len(cp))), int(trainFrac*float64(len(cn)))
		out[i] = MemberSplit{TrainPos: cp[:np], ValPos: cp[np:], TrainNeg: cn[:nn], ValNeg: cn[nn:]}
		if len(out[i].TrainPos)+len(out[i].TrainNeg) == 0 || len(out[i].ValPos)+len(out[i].ValNeg) == 0 {
			return nil, fmt.Errorf("split: member %d gets %d positives and %d negatives, too few for a training and a validation set",
				i+1, len(cp), len(cn))
		}
	}
	return out, nil
}

// Options configure ensemble training.
type Options struct {
	Members   int            // 5
	SplitSeed uint64         // 42
	TrainFrac float64        // 0.8
	Rules     critical.Rules // labelling rules applied to the stored statistics
	Threshold float64        // unanimity threshold stored in the probe, 0.7, unless calibrated
	// Holdout is the share of functions kept out of training for
	// calibration (0: none, every function trains).
	Holdout float64
	// TargetRate, when above 0, replaces Threshold by the value at which
	// the ensemble flags this share of the held-out functions' judged
	// tokens (see Calibration); it needs Holdout > 0.
	TargetRate float64
	MLP        mlp.Config // each member's recipe; member i uses seed MLP.Seed+i
	Threads    int        // total goroutines (members in parallel, then units)
	// Progress, if set, is called after each epoch of each member
	// (member is 0-based); calls may come from several goroutines.
	Progress func(member int, ep mlp.Epoch)
}

// DefaultOptions returns the paper's setting for rules r.
func DefaultOptions(r critical.Rules) Options {
	return Options{Members: 5, SplitSeed: 42, TrainFrac: 0.8, Rules: r, Threshold: probe.DefaultThreshold,
		MLP: mlp.DefaultConfig(), Threads: runtime.GOMAXPROCS(0)}
}

// MemberReport is one member's data sizes and training outcome.
type MemberReport struct {
	Member   int `json:"member"`
	TrainPos int `json:"train_pos"`
	TrainNeg int `json:"train_neg"`
	ValPos   int `json:"val_pos"`
	ValNeg   int `json:"val_neg"`
	mlp.Result
}

// Report is what training records in the probe file (as JSON).
type Report struct {
	// Labels names the labels folder by its last element: a probe file
	// depends on what it was trained from, not on where that lay, so the
	// same labels anywhere train the same bytes.
	Labels    string         `json:"labels"`
	Samples   int            `json:"samples"`
	Tokens    int            `json:"tokens"`
	Positives int            `json:"positives"`
	Negatives int            `json:"negatives"`
	Kept      int            `json:"negatives_kept"`
	Rules     critical.Rules `json:"rules"`
	Config    mlp.Config     `json:"config"`
	SplitSeed uint64         `json:"split_seed"`
	Members   []MemberReport `json:"members"`
	Ensemble  mlp.Metrics    `json:"ensemble_val"` // unanimous decision on all members' validation rows
	// Calibration is how the threshold was chosen on held-out functions
	// (nil without Holdout).
	Calibration *Calibration `json:"calibration,omitempty"`
	// Seconds and ExamplesPS (training examples processed per second) are
	// left out of the JSON so that a probe file depends only on its inputs.
	Seconds    float64 `json:"-"`
	ExamplesPS float64 `json:"-"`
}

// Ensemble trains a probe on a labels set.
func Ensemble(set *labelstore.Set, o Options) (*probe.Probe, *Report, error) {
	if err := o.Rules.Validate(); err != nil {
		return nil, nil, err
	}
	if o.TargetRate < 0 || o.TargetRate >= 1 || (o.TargetRate > 0 && o.Holdout <= 0) || o.Holdout < 0 || o.Holdout >= 1 {
		return nil, nil, fmt.Errorf("train: target rate %v needs a held-out share in (0, 1), got %v", o.TargetRate, o.Holdout)
	}
	isCritical := func(t labelstore.Token) bool { return t.Criteria(o.Rules)&o.Rules.Enabled != 0 }
	held := holdOut(set, o.Holdout, o.SplitSeed)
	// training draws on the tokens of the functions not held out
	var use []int
	for i, t := range set.Tokens {
		if !held[t.Sample] {
			use = append(use, i)
		}
	}
	positive := make([]bool, len(use))
	selfInfo := make([]float64, len(use))
	for j, i := range use {
		positive[j] = isCritical(set.Tokens[i])
		selfInfo[j] = set.Tokens[i].SelfInfo
	}
	pos, neg := Balance(positive, selfInfo)
	for _, s := range [][]int{pos, neg} {
		for k, j := range s {
			s[k] = use[j]
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		return nil, nil, fmt.Errorf("labels %s: %d critical and %d other tokens: both classes are needed", set.Dir(), len(pos), len(set.Tokens)-len(pos))
	}
	splits, err := Split(pos, neg, o.Members, o.SplitSeed, o.TrainFrac)
	if err != nil {
		return nil, nil, fmt.Errorf("labels %s: %w", set.Dir(), err)
	}
	rep := &Report{Labels: filepath.Base(set.Dir()), Samples: len(set.Samples) - len(held), Tokens: len(use), Positives: len(pos),
		Negatives: len(use) - len(pos), Kept: len(neg), Rules: o.Rules, Config: o.MLP, SplitSeed: o.SplitSeed,
		Members: make([]MemberReport, o.Members)}
	vals := make([]mlp.Data, o.Members)
	start := time.Now()

	workers := max(1, min(o.Threads, o.Members))
	cfg := o.MLP
	cfg.Threads = max(1, o.Threads/workers)
	jobs := make(chan int)
	errs := make([]error, o.Members)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				errs[i] = trainMember(set, splits[i], i, cfg, o.Progress, &rep.Members[i], &vals[i])
			}
		})
	}
	for i := range o.Members {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	var examples int
	for _, m := range rep.Members {
		examples += m.Epochs * (m.TrainPos + m.TrainNeg)
	}
	rep.ExamplesPS = float64(examples) / rep.Seconds

	p := &probe.Probe{Model: set.Header.Model, Units: o.MLP.Units, Threshold: o.Threshold, Rules: o.Rules}
	for _, m := range rep.Members {
		n := m.Net
		p.Members = append(p.Members, probe.Member{W1: n.W1(), B1: n.B1(), W2: n.W2(), B2: n.B2()})
	}
	if o.Holdout > 0 {
		c, err := calibrate(set, p, held, o.TargetRate, isCritical)
		if err != nil {
			return nil, nil, err
		}
		if o.TargetRate > 0 {
			if c.Judged == 0 {
				return nil, nil, fmt.Errorf("labels %s: the held-out functions have no judged tokens to calibrate on", set.Dir())
			}
			p.Threshold = c.Threshold
		}
		rep.Calibration = &c
	}
	rep.Ensemble = ensembleMetrics(p, vals)
	if p.Metrics, err = json.Marshal(rep); err != nil {
		return nil, nil, err
	}
	return p, rep, nil
}

// trainMember gathers one member's rows and trains it.
func trainMember(set *labelstore.Set, s MemberSplit, i int, cfg mlp.Config, progress func(int, mlp.Epoch), rep *MemberReport, val *mlp.Data) error {
	d := set.Header.Model.Hidden
	gather := func(pos, neg []int) (mlp.Data, error) {
		rows := make([]int64, 0, len(pos)+len(neg))
		data := mlp.Data{Y: make([]int32, 0, len(pos)+len(neg))}
		for _, c := range []struct {
			idx []int
			y   int32
		}{{pos, 1}, {neg, 0}} {
			for _, t := range c.idx {
				rows = append(rows, set.Tokens[t].Row)
				data.Y = append(data.Y, c.y)
			}
		}
		data.X = make([]float32, len(rows)*d)
		return data, set.Hidden(rows, data.X)
	}
	tr, err := gather(s.TrainPos, s.TrainNeg)
	if err != nil {
		return err
	}
	if *val, err = gather(s.ValPos, s.ValNeg); err != nil {
		return err
	}
	cfg.Seed += uint64(i)
	var cb func(mlp.Epoch)
	if progress != nil {
		cb = func(ep mlp.Epoch) { progress(i, ep) }
	}
	res, err := mlp.Train(cfg, d, tr, *val, cb)
	if err != nil {
		return fmt.Errorf("member %d: %w", i+1, err)
	}
	*rep = MemberReport{Member: i + 1, TrainPos: len(s.TrainPos), TrainNeg: len(s.TrainNeg), ValPos: len(s.ValPos), ValNeg: len(s.ValNeg), Result: *res}
	return nil
}

// ensembleMetrics scores the unanimous decision on every validation row.
func ensembleMetrics(p *probe.Probe, vals []mlp.Data) mlp.Metrics {
	var m mlp.Metrics
	for _, v := range vals {
		dec := make([]bool, len(v.Y))
		p.CriticalBatch(v.X, dec)
		for r, y := range v.Y {
			pred := int32(0)
			if dec[r] {
				pred = 1
			}
			m.Add(pred, y)
		}
	}
	m.Finish()
	return m
}
