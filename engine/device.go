package engine

import "actor/engine/ggml"

// Devices a decoder can run on (Options.Device): DeviceAuto takes a CUDA
// GPU when ggml's CUDA library (built by `make cuda`) loads beside the
// binary and a device answers, else the CPU.
const (
	DeviceAuto = ggml.DeviceAuto
	DeviceCPU  = ggml.DeviceCPU
	DeviceCUDA = ggml.DeviceCUDA
)

// GPU is a device of the CUDA backend (name, product, memory).
type GPU = ggml.GPU

// CUDAFound is what the search for the CUDA library found.
type CUDAFound = ggml.Found

// FindCUDA loads the CUDA library beside the binary ($ACTOR_CUDA_LIB
// instead when set), once per process, and lists its devices.
func FindCUDA() CUDAFound { return ggml.FindCUDA() }

// ResolveDevice checks a device name before any model loads and returns
// the line to show about it: which GPU, or why the CPU when a CUDA build
// found none. DeviceCUDA without a usable GPU is an error (ErrNoGPU
// wrapped, with the reason); DeviceCPU loads nothing and returns no line,
// nor does DeviceAuto when no CUDA library is beside the binary.
func ResolveDevice(device string) (note string, err error) {
	_, note, err = ggml.ResolveDevice(device)
	return note, err
}

// CheckDevice is nil for a device name Options.Device accepts, else an
// error naming the choices (for checking a flag before anything loads).
func CheckDevice(device string) error { return ggml.CheckDevice(device) }

// ErrNoGPU is wrapped by the errors of DeviceCUDA when no GPU can be used.
var ErrNoGPU = ggml.ErrNoGPU

// GPU returns the device holding the model's layers, nil on the CPU.
func (m *Model) GPU() *GPU { return m.net.GPU() }

// CUDALibrary is the file name of the CUDA library looked for beside the
// binary.
const CUDALibrary = ggml.CUDALibrary

// BuiltWithAVX2 reports whether ggml's C code in this binary was compiled
// with AVX2, FMA and F16C (make build does).
func BuiltWithAVX2() bool { return ggml.BuiltWithAVX2() }
