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
	Engine       string  `json:"engine"`
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
	StepHiddenMS  float64 `json:"step_hidden_ms"`
	LoadS         float64 `json:"load_s"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	FileMB        float64 `json:"file_mb"`
	KVMB          float64 `json:"kv_mb"`
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

func main() {
	model := flag.String("model", "", "GGUF file")
	threads := flag.Int("threads", 1, "ggml threads")
	prompt := flag.Int("prompt", 512, "prompt tokens to prefill")
	decode := flag.Int("decode", 64, "tokens to decode after the prompt")
	flash := flag.Bool("flash-attn", false, "use flash attention")
	f32 := flag.Bool("f32-cache", false, "float32 KV cache")
	keep := flag.Bool("keep-q5_0", false, "keep Q5_0 matrices as stored (no widening to Q8_0)")
	flag.Parse()
	if err := run(*model, *threads, *prompt, *decode, *flash, *f32, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "enginebench:", err)
		os.Exit(1)
	}
}

func run(path string, threads, nPrompt, nDecode int, flash, f32, keepQ5 bool) error {
	t0 := time.Now()
	ctxLen := nPrompt + 2*nDecode + 8
	m, err := engine.Load(path, engine.Options{Threads: threads, ContextLength: ctxLen, FlashAttention: flash, F32Cache: f32, KeepQ5_0: keepQ5})
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
		LoadS: time.Since(t0).Seconds()}
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
