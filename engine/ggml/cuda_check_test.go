//go:build cudacheck

package ggml

import (
	"math"
	"os"
	"testing"

	fsggml "github.com/ollama/ollama/fs/ggml"
)

// TestCUDAMatchesCPU compares the logits of random models in several
// weight types on the GPU with the CPU's. It runs where the CUDA library
// loads and a device answers ($ACTOR_CUDA_LIB), and is built only with
// the cudacheck tag: scripts/check-cuda.sh runs it (from bin/ggml.test,
// which make cuda builds) and reports a skip as a skipped row.
func TestCUDAMatchesCPU(t *testing.T) {
	if os.Getenv(CUDALibraryEnv) == "" {
		t.Skip("set $" + CUDALibraryEnv + " to the CUDA library to compare GPU with CPU")
	}
	gpu, note, err := ResolveDevice(DeviceAuto)
	if err != nil {
		t.Fatal(err)
	}
	if gpu == nil {
		t.Skip(note)
	}
	t.Log(note)
	all := make([]int, len(tokens))
	for i := range all {
		all[i] = i
	}
	for _, typ := range []fsggml.TensorType{fsggml.TensorTypeF32, fsggml.TensorTypeF16, fsggml.TensorTypeQ8_0,
		fsggml.TensorTypeQ4_0, fsggml.TensorTypeQ4_K, fsggml.TensorTypeQ6_K} {
		for _, flash := range []bool{false, true} {
			cpu := loadRandom(t, typ, false, Options{Threads: 2, FlashAttention: flash})
			dev := loadRandom(t, typ, false, Options{Threads: 2, FlashAttention: flash, GPU: gpu})
			if dev.GPU() == nil || dev.Repacked() != 0 {
				t.Fatalf("%v: model not held on the GPU (GPU %v, %d repacked)", typ, dev.GPU(), dev.Repacked())
			}
			// a prefill, then a batch reading logits, hidden states and attention
			b := Batch{Tokens: tokens[5:], Start: 5, Outputs: all[:len(tokens)-5], Logits: true, Hidden: true, Attention: true}
			want, got := func() (Output, Output) {
				cc, gc := newCache(t, cpu, CacheF16), newCache(t, dev, CacheF16)
				run(t, cpu, cc, Batch{Tokens: tokens[:5]})
				run(t, dev, gc, Batch{Tokens: tokens[:5]})
				return run(t, cpu, cc, b), run(t, dev, gc, b)
			}()
			for _, r := range []struct {
				what      string
				got, want []float32
			}{{"logits", got.Logits, want.Logits}, {"hidden", got.Hidden, want.Hidden}, {"attention", got.Attention, want.Attention}} {
				if len(r.got) != len(r.want) || len(r.want) == 0 {
					t.Fatalf("%v flash %v %s: %d values on the GPU, %d on the CPU", typ, flash, r.what, len(r.got), len(r.want))
				}
				var worst, scale float64
				for i := range r.want {
					worst = max(worst, math.Abs(float64(r.got[i]-r.want[i])))
					scale = max(scale, math.Abs(float64(r.want[i])))
				}
				t.Logf("%v flash %v %s: max |GPU-CPU| %.3g of max %.3g", typ, flash, r.what, worst, scale)
				if worst > 0.02*scale+1e-3 {
					t.Errorf("%v flash %v %s: GPU differs from CPU by %.3g (max %.3g)", typ, flash, r.what, worst, scale)
				}
			}
		}
	}
}
