package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeviceWithoutGPU: with no CUDA library, actor device says so, a
// model command on auto runs on the CPU and says nothing about CUDA (a CPU
// build), --device cuda stops with one line and exit 1, and a wrong value
// is refused in one line with exit 2. With a file there that is no
// library (a broken CUDA build), auto says in one line why the CPU.
func TestDeviceWithoutGPU(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libggml-cuda.so")
	t.Setenv("ACTOR_CUDA_LIB", lib)
	reason := "no CUDA library at " + lib

	out, stderr, code := runActor(t, "device")
	if code != 0 || !strings.HasPrefix(out, "cpu\tggml CPU backend") ||
		!strings.Contains(out, "cuda library\t"+lib+" (not loaded)\n") || !strings.HasSuffix(out, "cuda\tnone: "+reason+"\n") {
		t.Fatalf("actor device: exit %d, stdout %q, stderr %q", code, out, stderr)
	}

	prompt := writeFile(t, "p.txt", "def add(a, b):\n    return")
	gen := func(device string) (string, string, int) {
		return runActor(t, "generate", "--model", tinyModel, "--prompt-file", prompt, "--max-tokens", "4",
			"--threads", "1", "--device", device)
	}
	out, stderr, code = gen("auto")
	if code != 0 || out == "" || strings.Contains(stderr, "device:") || strings.Contains(stderr, "CUDA") {
		t.Fatalf("--device auto: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	cpuOut := out
	out, stderr, code = gen("cpu")
	if code != 0 || out != cpuOut || strings.Contains(stderr, "device:") {
		t.Fatalf("--device cpu: exit %d, stdout %q (auto: %q), stderr %q", code, out, cpuOut, stderr)
	}
	out, stderr, code = gen("cuda")
	want := "actor: engine: --device cuda: no CUDA device: " + reason + "\n"
	if code != 1 || out != "" || withoutCPUWarning(stderr) != want {
		t.Fatalf("--device cuda: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, stderr, want)
	}
	_, stderr, code = gen("gpu")
	if stderr = withoutCPUWarning(stderr); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, `device "gpu": want auto, cpu or cuda`) {
		t.Fatalf("--device gpu: exit %d, stderr %q", code, stderr)
	}

	if err := os.WriteFile(lib, []byte("not a library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = gen("auto")
	if code != 0 || out != cpuOut || strings.Count(stderr, "device: CPU (cannot load "+lib+": ") != 1 || strings.Count(stderr, "CUDA") != 0 {
		t.Fatalf("--device auto, broken library: exit %d, stdout %q (no library: %q), stderr %q", code, out, cpuOut, stderr)
	}
}

// withoutCPUWarning is a command's stderr less the warning a binary built
// without AVX2 prints first (a plain go test build).
func withoutCPUWarning(stderr string) string {
	if strings.HasPrefix(stderr, "WARNING: this actor binary was built without AVX2") {
		_, rest, _ := strings.Cut(stderr, "\n")
		return rest
	}
	return stderr
}
