package ggml

/*
#cgo linux LDFLAGS: -Wl,--export-dynamic -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

typedef struct ggml_backend_reg * ggml_backend_reg_t;
typedef struct ggml_backend_device * ggml_backend_dev_t;
typedef void (*ggml_log_callback)(int level, const char * text, void * user_data);
void ggml_log_get(ggml_log_callback * log_callback, void ** user_data);
void ggml_log_set(ggml_log_callback log_callback, void * user_data);
ggml_backend_reg_t ggml_backend_load(const char * path);
const char * ggml_backend_reg_name(ggml_backend_reg_t reg);
size_t ggml_backend_reg_dev_count(ggml_backend_reg_t reg);
ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index);
const char * ggml_backend_dev_name(ggml_backend_dev_t device);
const char * ggml_backend_dev_description(ggml_backend_dev_t device);
void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);
int ggml_backend_dev_type(ggml_backend_dev_t device);

// dev_props mirrors ollama v0.17.4's struct ggml_backend_dev_props
// (ggml-backend.h, with ollama's id, driver, compute and library fields).
struct dev_props {
	const char * name;
	const char * description;
	size_t memory_free;
	const char * id;
	size_t memory_total;
	int type;
	const char * device_id;
	struct { _Bool async, host_buffer, buffer_from_host_ptr, events; } caps;
	int driver_major, driver_minor, compute_major, compute_minor, integrated;
	const char * library;
};
void ggml_backend_dev_get_props(ggml_backend_dev_t device, struct dev_props * props);

// load_log keeps the last error ggml logs while a library loads, so that
// the reason a device is missing is one line of ours, not ggml's lines.
static char load_log[512];
static void capture(int level, const char * text, void * user_data) {
	(void) user_data;
	if (level == 4) { // GGML_LOG_LEVEL_ERROR
		strncpy(load_log, text, sizeof load_log - 1);
		load_log[sizeof load_log - 1] = 0;
	}
}

// load_backend loads the backend library at path quietly: NULL with the
// loader's or ggml's error in err when it fails.
static ggml_backend_reg_t load_backend(const char * path, char * err, size_t n) {
	load_log[0] = 0;
	void * probe = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (probe == NULL) {
		const char * e = dlerror();
		strncpy(err, e ? e : "dlopen failed", n - 1);
		err[n - 1] = 0;
		return NULL;
	}
	ggml_log_callback cb; void * ud;
	ggml_log_get(&cb, &ud);
	ggml_log_set(capture, NULL);
	ggml_backend_reg_t reg = ggml_backend_load(path);
	ggml_log_set(cb, ud);
	dlclose(probe);
	strncpy(err, load_log, n - 1);
	err[n - 1] = 0;
	return reg;
}

// reg_devices returns the number of devices of reg, quietly (a backend may
// initialise its driver here), with ggml's last error in err.
static size_t reg_devices(ggml_backend_reg_t reg, char * err, size_t n) {
	load_log[0] = 0;
	ggml_log_callback cb; void * ud;
	ggml_log_get(&cb, &ud);
	ggml_log_set(capture, NULL);
	size_t count = ggml_backend_reg_dev_count(reg);
	ggml_log_set(cb, ud);
	strncpy(err, load_log, n - 1);
	err[n - 1] = 0;
	return count;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"
)

// Device names where a decoder runs: DeviceAuto (a CUDA GPU when the
// library loads and a device answers, else the CPU), DeviceCPU or
// DeviceCUDA.
const (
	DeviceAuto = "auto"
	DeviceCPU  = "cpu"
	DeviceCUDA = "cuda"
)

// CUDALibrary is the file name of ggml's CUDA backend (built by
// scripts/build-cuda.sh), looked for beside the executable.
const CUDALibrary = "libggml-cuda.so"

// CUDALibraryEnv names the environment variable that, when set, is the
// path of the CUDA library to load instead of the one beside the binary.
const CUDALibraryEnv = "ACTOR_CUDA_LIB"

// GPU is one device of a loaded GPU backend.
type GPU struct {
	Name        string // ggml's device name ("CUDA0")
	Description string // the product ("NVIDIA H200")
	ID          string // ollama's device id (its placement key)
	Library     string // the backend library's kind ("CUDA")
	Compute     string // compute capability ("9.0")
	FreeMemory  uint64 // bytes free when found
	TotalMemory uint64 // bytes in all
}

// String is the device in one phrase: name, product and memory.
func (g GPU) String() string {
	s := fmt.Sprintf("%s (%s", g.Name, g.Description)
	if g.Compute != "" {
		s += ", compute " + g.Compute
	}
	return s + fmt.Sprintf(", %.1f GiB)", float64(g.TotalMemory)/(1<<30))
}

// Found is what the search for the CUDA backend found: where the library
// was looked for, whether it loaded, why not, and its devices.
type Found struct {
	Library string // the path looked at
	Present bool   // a file is at Library (a CUDA build)
	Loaded  bool   // the library loaded and registered its backend
	Reason  string // why there is no GPU (empty when there is one)
	GPUs    []GPU
}

var (
	prepareOnce sync.Once
	cudaOnce    sync.Once
	cudaFound   Found
)

// prepare keeps ollama's backend loader from loading any library itself
// (it would search OLLAMA_LIBRARY_PATH or DIR/../lib/ollama, where an
// installed Ollama keeps libraries built from other ggml source): actor
// loads its own, in FindCUDA. Called before the first backend is made.
func prepare() {
	prepareOnce.Do(func() { os.Setenv("OLLAMA_LIBRARY_PATH", "") })
}

// CUDALibraryPath is the CUDA library actor loads: $ACTOR_CUDA_LIB, or
// libggml-cuda.so in the directory of the executable (symbolic links
// resolved).
func CUDALibraryPath() string {
	if p := os.Getenv(CUDALibraryEnv); p != "" {
		return p
	}
	exe, err := os.Executable()
	if err != nil {
		return CUDALibrary
	}
	if e, err := filepath.EvalSymlinks(exe); err == nil {
		exe = e
	}
	return filepath.Join(filepath.Dir(exe), CUDALibrary)
}

// FindCUDA loads the CUDA library (once per process) and lists its
// devices. It must run before the first model is loaded for the devices
// to be usable; Load and ResolveDevice call it when asked for a GPU.
func FindCUDA() Found {
	cudaOnce.Do(func() {
		prepare()
		path := CUDALibraryPath()
		cudaFound = Found{Library: path}
		if _, err := os.Stat(path); err != nil {
			cudaFound.Reason = "no CUDA library at " + path
			return
		}
		cudaFound.Present = true
		cpath := C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
		var buf [512]C.char
		reg := C.load_backend(cpath, &buf[0], C.size_t(len(buf)))
		if reg == nil {
			cudaFound.Reason = "cannot load " + path + ": " + oneLine(strings.TrimPrefix(C.GoString(&buf[0]), path+": "))
			return
		}
		cudaFound.Loaded = true
		loadMsg := C.GoString(&buf[0]) // the backend may log why it has no device while it registers
		n := C.reg_devices(reg, &buf[0], C.size_t(len(buf)))
		for i := C.size_t(0); i < n; i++ {
			cudaFound.GPUs = append(cudaFound.GPUs, gpuOf(C.ggml_backend_reg_dev_get(reg, i)))
		}
		if len(cudaFound.GPUs) == 0 {
			cudaFound.Reason = "no CUDA device answered"
			msg := C.GoString(&buf[0])
			if msg == "" {
				msg = loadMsg
			}
			if e := oneLine(msg); e != "" {
				cudaFound.Reason += " (" + e + ")"
			}
		}
	})
	return cudaFound
}

func gpuOf(d C.ggml_backend_dev_t) GPU {
	var p C.struct_dev_props
	C.ggml_backend_dev_get_props(d, &p)
	g := GPU{Name: C.GoString(C.ggml_backend_dev_name(d)), Description: C.GoString(C.ggml_backend_dev_description(d)),
		ID: C.GoString(p.id), Library: C.GoString(p.library)}
	if p.compute_major > 0 {
		g.Compute = fmt.Sprintf("%d.%d", p.compute_major, p.compute_minor)
	}
	var free, total C.size_t
	C.ggml_backend_dev_memory(d, &free, &total)
	g.FreeMemory, g.TotalMemory = uint64(free), uint64(total)
	return g
}

// oneLine is ggml's or the loader's message without its function prefix
// and line breaks.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ": "); i > 0 && !strings.ContainsAny(s[:i], " /") {
		s = s[i+2:]
	}
	return s
}

// CheckDevice is nil for the names ResolveDevice accepts (DeviceAuto, ""
// too, DeviceCPU, DeviceCUDA) and an error naming the choices otherwise.
func CheckDevice(device string) error {
	switch device {
	case "", DeviceAuto, DeviceCPU, DeviceCUDA:
		return nil
	}
	return fmt.Errorf("device %q: want %s, %s or %s", device, DeviceAuto, DeviceCPU, DeviceCUDA)
}

// ErrNoGPU is returned (wrapped, with the reason) by ResolveDevice when
// DeviceCUDA is asked for and no CUDA device can be used.
var ErrNoGPU = errors.New("no CUDA device")

// ResolveDevice turns a --device value into the GPU to run on (nil: the
// CPU) and one line saying what was chosen and why. DeviceCUDA without a
// usable GPU is an error naming the reason. The line is empty where there
// is nothing to tell: DeviceCPU (the library is never loaded) and
// DeviceAuto in a CPU build (no library beside the binary), so a CPU user
// sees exactly what a build without CUDA support shows.
func ResolveDevice(device string) (gpu *GPU, note string, err error) {
	switch device {
	case DeviceCPU:
		return nil, "", nil
	case "", DeviceAuto, DeviceCUDA:
	default:
		return nil, "", CheckDevice(device)
	}
	f := FindCUDA()
	if len(f.GPUs) == 0 {
		if device == DeviceCUDA {
			return nil, "", fmt.Errorf("--device cuda: %w: %s", ErrNoGPU, f.Reason)
		}
		if !f.Present {
			return nil, "", nil
		}
		return nil, "device: CPU (" + f.Reason + ")", nil
	}
	g := f.GPUs[0]
	return &g, "device: " + g.String(), nil
}
