package tokenizer

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkEncode measures encoding speed on the stdlib files of each
// fixture, with the word cache warm (the steady state when tokenising a
// repository) and cold (emptied before every pass). tokens/cpu-s divides by
// the process's CPU time, which stays meaningful on a shared machine:
//
//	go test -run XXX -bench Encode -benchtime 3x ./tokenizer/
//
// The Hugging Face tokenizers of hf-stdlib-*.tokref.gz run as hf-<name>.
func BenchmarkEncode(b *testing.B) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "stdlib-*.tokref.gz"))
	hf, _ := filepath.Glob(filepath.Join("testdata", "hf-stdlib-*.tokref.gz"))
	for _, fx := range append(fixtures, hf...) {
		h, files, err := readTokref(fx)
		if err != nil {
			b.Fatal(err)
		}
		var tok *Tokenizer
		if h.DecodeSHA256 {
			for _, tk := range hfTokenizers(b, h.Tokenizer, h.SourceSHA256) {
				tok = tk // any of the equal loaders
			}
			h.Tokenizer = "hf-" + h.Tokenizer
		} else {
			tok = load(b, fixtureGGUF(b, h))
		}
		root := os.Getenv("ACTOR_PY_STDLIB")
		if root == "" {
			root = h.Stdlib
		}
		var texts []string
		size := 0
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
			if err != nil {
				b.Skipf("stdlib files absent: %v", err)
			}
			texts = append(texts, string(data))
			size += len(data)
		}
		for _, warm := range []bool{true, false} {
			name := h.Tokenizer + "/cold"
			if warm {
				name = h.Tokenizer + "/warm"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(size))
				tokens := 0
				var elapsed, cpu time.Duration
				for b.Loop() {
					if !warm {
						tok.cache = wordCache{}
					}
					start, cpu0 := time.Now(), cpuTime()
					for _, s := range texts {
						tokens += len(tok.Encode(s, false))
					}
					elapsed += time.Since(start)
					cpu += cpuTime() - cpu0
				}
				b.ReportMetric(float64(tokens)/elapsed.Seconds(), "tokens/s")
				b.ReportMetric(float64(tokens)/cpu.Seconds(), "tokens/cpu-s")
			})
		}
	}
}

// cpuTime returns the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
