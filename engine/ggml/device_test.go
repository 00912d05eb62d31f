package ggml

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fsggml "github.com/ollama/ollama/fs/ggml"
)

// fakeBackend is a ggml backend library with no device: its device count
// logs an error through ggml_log_internal, a symbol it leaves undefined,
// so loading it also shows that the binary exports ggml's symbols to the
// libraries it loads (as the CUDA library needs).
const fakeBackend = `
#include <stddef.h>
struct reg;
struct reg_i {
	const char * (*get_name)(struct reg *);
	size_t (*get_device_count)(struct reg *);
	void * (*get_device)(struct reg *, size_t);
	void * (*get_proc_address)(struct reg *, const char *);
};
struct reg { int api_version; struct reg_i iface; void * context; };
void ggml_log_internal(int level, const char * format, ...);
static const char * name(struct reg * r) { (void) r; return "FAKE"; }
static size_t count(struct reg * r) {
	(void) r;
	ggml_log_internal(4, "fake_init: failed to initialize FAKE: no device in this test\n");
	return 0;
}
static void * device(struct reg * r, size_t i) { (void) r; (void) i; return NULL; }
static void * proc(struct reg * r, const char * n) { (void) r; (void) n; return NULL; }
static struct reg the_reg = {2, {name, count, device, proc}, NULL};
struct reg * ggml_backend_init(void) { return &the_reg; }
`

// childCase, when set in the environment, makes TestDeviceFallback run
// that one case in this process (FindCUDA runs once per process).
const childCase = "ACTOR_TEST_DEVICE_CASE"

// runChild runs TestDeviceFallback for one case in a new process with the case and the
// CUDA library path, and fails t with its output when it fails.
func runChild(t *testing.T, name, lib string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeviceFallback$", "-test.v")
	cmd.Env = append(os.Environ(), childCase+"="+name, CUDALibraryEnv+"="+lib)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestDeviceFallback") {
		t.Fatalf("case %s: %v\n%s", name, err, out)
	}
}

// TestDeviceFallback: without the library, with a file that is no library,
// and with a backend that finds no device, auto runs on the CPU (saying
// nothing in the first case, why in one line in the others), cuda is a
// one-line error, cpu loads nothing.
func TestDeviceFallback(t *testing.T) {
	if name := os.Getenv(childCase); name != "" {
		deviceCase(t, name)
		return
	}
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.so")
	if err := os.WriteFile(broken, []byte("not a library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Fatal("no C compiler (cgo needs one):", err)
	}
	src, fake := filepath.Join(dir, "fake.c"), filepath.Join(dir, "libggml-fake.so")
	if err := os.WriteFile(src, []byte(fakeBackend), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", fake, src).CombinedOutput(); err != nil {
		t.Fatalf("compiling the fake backend: %v\n%s", err, out)
	}
	runChild(t, "missing", filepath.Join(dir, "none", CUDALibrary))
	runChild(t, "broken", broken)
	runChild(t, "nodevice", fake)
}

// deviceCase is one case of TestDeviceFallback, in its own process.
func deviceCase(t *testing.T, name string) {
	lib := os.Getenv(CUDALibraryEnv)
	if got := CUDALibraryPath(); got != lib {
		t.Fatalf("CUDALibraryPath() = %q, want $%s %q", got, CUDALibraryEnv, lib)
	}
	if gpu, note, err := ResolveDevice(DeviceCPU); gpu != nil || note != "" || err != nil {
		t.Fatalf("cpu: %v %q %v", gpu, note, err)
	}
	if _, _, err := ResolveDevice("gpu"); err == nil {
		t.Fatal("device gpu accepted")
	}
	f := FindCUDA()
	want := map[string]struct {
		loaded bool
		reason string
	}{
		"missing":  {false, "no CUDA library at " + lib},
		"broken":   {false, "cannot load " + lib + ": "},
		"nodevice": {true, "no CUDA device answered (failed to initialize FAKE: no device in this test)"},
	}[name]
	if f.Loaded != want.loaded || !strings.HasPrefix(f.Reason, want.reason) || len(f.GPUs) != 0 {
		t.Fatalf("FindCUDA() = %+v, want loaded %v, reason %q…", f, want.loaded, want.reason)
	}
	if f.Present != (name != "missing") {
		t.Fatalf("FindCUDA() = %+v: Present wrong for case %s", f, name)
	}
	wantNote := "device: CPU (" + f.Reason + ")"
	if name == "missing" {
		wantNote = "" // a CPU build says nothing about CUDA
	}
	gpu, note, err := ResolveDevice(DeviceAuto)
	if gpu != nil || err != nil || note != wantNote || strings.Contains(note, "\n") {
		t.Fatalf("auto: %v %q %v; want note %q", gpu, note, err, wantNote)
	}
	gpu, note, err = ResolveDevice(DeviceCUDA)
	if gpu != nil || note != "" || !errors.Is(err, ErrNoGPU) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), f.Reason) {
		t.Fatalf("cuda: %v %q %v", gpu, note, err)
	}
	// The CPU still runs a model after the search.
	m := loadRandom(t, fsggml.TensorTypeF32, false, Options{Threads: 1})
	out := run(t, m, newCache(t, m, CacheF16), Batch{Tokens: tokens[:4], Outputs: []int{3}, Logits: true})
	if len(out.Logits) == 0 || math.IsNaN(float64(out.Logits[0])) {
		t.Fatalf("logits after the device search: %v", out.Logits[:min(4, len(out.Logits))])
	}
}
