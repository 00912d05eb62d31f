// Command enginebench measures the engine's prefill and decode speed on a
// GGUF file, the cost of reading the hidden state at each step, and the
// peak memory; scripts/bench/llamacpp_bench.py measures llama.cpp the same
// way and scripts/bench/engine.sh runs both side by side.
//
// It prints one JSON object. Token ids are synthetic (the same formula as
// the Python side), so no tokenizer is involved.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"actor/engine"
)

// result is the JSON line printed.
type result struct {
	Engine string `json:"engine"`
	// Device is "cpu" or the GPU that held the layers (--device)
	Device       string  `json:"device"`
	Model        string  `json:"model"`
	Threads      int     `json:"threads"`
	Flash        bool    `json:"flash_attn"`
	Repacked     int     `json:"repacked_matrices"`
	Widened      int     `json:"widened_matrices"`
	PromptTokens int     `json:"prompt_tokens"`
	DecodeTokens int     `json:"decode_tokens"`
	PrefillTPS   float64 `json:"prefill_tps"`
	DecodeTPS    float64 `json:"decode_tps"`
	// per CPU-second of the process: less sensitive to other load at 1 thread
	PrefillCPUTPS float64 `json:"prefill_cpu_tps"`
	DecodeCPUTPS  float64 `json:"decode_cpu_tps"`
	StepMS        float64 `json:"step_ms"`
	// with --lanes N: one step of N sequences forked from the prompt,
	// decoded as one batch (engine.Model.PrefillBatch), and its ratio to
	// a single sequence's step
	Lanes        int     `json:"lanes,omitempty"`
	LanesStepMS  float64 `json:"lanes_step_ms,omitempty"`
	LanesPerStep float64 `json:"lanes_step_ratio,omitempty"`
	StepHiddenMS float64 `json:"step_hidden_ms"`
	LoadS        float64 `json:"load_s"`
	PeakRSSMB    float64 `json:"peak_rss_mb"`
	FileMB       float64 `json:"file_mb"`
	KVMB         float64 `json:"kv_mb"`
}

// benchIDs returns n synthetic token ids below vocab (shared formula with
// the Python script).
func benchIDs(n, vocab int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(100 + (i*7919)%(vocab-200))
	}
	return ids
}

// options are the command's flags.
type options struct {
	path               string
	threads, nPrompt   int
	nDecode, lanes     int
	flash, f32, keepQ5 bool
	device             string
}

func main() {
	var o options
	flag.StringVar(&o.path, "model", "", "GGUF file")
	flag.IntVar(&o.threads, "threads", 1, "ggml threads")
	flag.IntVar(&o.nPrompt, "prompt", 512, "prompt tokens to prefill")
	flag.IntVar(&o.nDecode, "decode", 64, "tokens to decode after the prompt")
	flag.IntVar(&o.lanes, "lanes", 0, "also decode this many sequences forked from the prompt as one batch (0: no)")
	flag.BoolVar(&o.flash, "flash-attn", false, "use flash attention")
	flag.BoolVar(&o.f32, "f32-cache", false, "float32 KV cache")
	flag.BoolVar(&o.keepQ5, "keep-q5_0", false, "keep Q5_0 matrices as stored (no widening to Q8_0)")
	flag.StringVar(&o.device, "device", engine.DeviceCPU, "cpu, cuda or auto (docs/CUDA.md)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "enginebench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	path, threads, nPrompt, nDecode, flash, f32, keepQ5 := o.path, o.threads, o.nPrompt, o.nDecode, o.flash, o.f32, o.keepQ5
	t0 := time.Now()
	ctxLen := nPrompt + 2*nDecode + 8
	m, err := engine.Load(path, engine.Options{Threads: threads, ContextLength: ctxLen, FlashAttention: flash, F32Cache: f32, KeepQ5_0: keepQ5,
		Device: o.device})
	if err != nil {
		return err
	}
	defer m.Close()
	engineName := "actor"
	for _, f := range engine.BuildFeatures() {
		engineName += "+" + f
	}
	widened, _ := m.WidenedMatrices()
	r := result{Engine: engineName, Model: path, Repacked: m.RepackedMatrices(), Widened: widened, Threads: threads, Flash: flash, PromptTokens: nPrompt, DecodeTokens: nDecode,
		LoadS: time.Since(t0).Seconds(), Device: engine.DeviceCPU}
	if g := m.GPU(); g != nil {
		r.Device = g.Name + " " + g.Description
	}
	s, err := m.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	ids := benchIDs(nPrompt, m.Config.Vocab)
	// warm-up: allocates the graph buffers once, as llama.cpp does at start
	if _, err := s.Prefill(ids[:8]); err != nil {
		return err
	}
	s.Truncate(0)
	t0, c0 := time.Now(), cpuSeconds()
	p, err := s.Prefill(ids)
	if err != nil {
		return err
	}
	r.PrefillTPS = float64(nPrompt) / time.Since(t0).Seconds()
	r.PrefillCPUTPS = float64(nPrompt) / (cpuSeconds() - c0)
	steps := func(hidden bool) (float64, error) {
		s.Hidden = hidden
		t0, c0 := time.Now(), cpuSeconds()
		for range nDecode {
			if p, err = s.Step(p.Top1); err != nil {
				return 0, err
			}
		}
		if !hidden {
			r.DecodeCPUTPS = float64(nDecode) / (cpuSeconds() - c0)
		}
		return time.Since(t0).Seconds() / float64(nDecode), nil
	}
	plain, err := steps(false)
	if err != nil {
		return err
	}
	s.Truncate(nPrompt) // same positions again, now reading the hidden state
	withHidden, err := steps(true)
	if err != nil {
		return err
	}
	r.DecodeTPS, r.StepMS, r.StepHiddenMS = 1/plain, plain*1e3, withHidden*1e3
	if o.lanes > 0 {
		if err := s.Truncate(nPrompt); err != nil {
			return err
		}
		ms, err := laneSteps(m, s, o.lanes, nDecode)
		if err != nil {
			return err
		}
		r.Lanes, r.LanesStepMS, r.LanesPerStep = o.lanes, ms, ms/r.StepMS
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	c := m.Config
	kvBytes := 2 * int64(c.Layers) * int64(c.KVHeads*c.HeadDim) * int64(ctxLen) * 2
	if f32 {
		kvBytes *= 2
	}
	r.FileMB, r.KVMB, r.PeakRSSMB = float64(st.Size())/(1<<20), float64(kvBytes)/(1<<20), peakRSSMB()
	return json.NewEncoder(os.Stdout).Encode(r)
}

// laneSteps forks lanes sessions from s's prompt and decodes nDecode steps
// of them as one batch each; it returns the mean ms per batched step.
func laneSteps(m *engine.Model, s *engine.Session, lanes, nDecode int) (float64, error) {
	ss := make([]*engine.Session, lanes)
	seqs := make([][]int32, lanes)
	for i := range ss {
		l, err := m.NewSession()
		if err != nil {
			return 0, err
		}
		defer l.Close()
		if err := l.Fork(s, s.Len()); err != nil {
			return 0, err
		}
		ss[i], seqs[i] = l, s.Tokens()
	}
	t0 := time.Now()
	for step := range nDecode {
		for i := range seqs {
			seqs[i] = append(seqs[i], int32(100+(step*31+i*7)%1000)) // a different token per lane
		}
		if _, err := m.PrefillBatch(ss, seqs); err != nil {
			return 0, err
		}
	}
	return time.Since(t0).Seconds() * 1e3 / float64(nDecode), nil
}

// cpuSeconds is the user+system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakRSSMB reads the process's peak resident set (VmHWM) from /proc.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
