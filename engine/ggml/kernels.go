package ggml

/*
#include <stdlib.h>
#include "kernels.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/ollama/ollama/ml"
	ggmlbe "github.com/ollama/ollama/ml/backend/ggml"
)

// useSIMD selects the AVX2 kernels of attention.c and linear.c when they
// are compiled in (tests turn it off to check the portable ones).
var useSIMD = C.actor_have_simd() == 1

func simdFlag() C.int {
	if useSIMD {
		return 1
	}
	return 0
}

// contextHeader mirrors ollama's ggml.Context (v0.17.4): the backend, the
// C context, and fields this package does not touch.
type contextHeader struct {
	b                unsafe.Pointer
	ctx              *C.struct_ggml_context
	graph            unsafe.Pointer
	batchSize        int
	buft             unsafe.Pointer
	allocatedBuffers unsafe.Pointer
	maxGraphNodes    int
	layer            int
}

// rawContext returns the C context of an ollama graph context.
func rawContext(ctx ml.Context) *C.struct_ggml_context {
	if unsafe.Sizeof(ggmlbe.Context{}) != unsafe.Sizeof(contextHeader{}) {
		panic(fmt.Errorf("ollama's ggml.Context changed layout: update contextHeader"))
	}
	return (*contextHeader)(unsafe.Pointer(ctx.(*ggmlbe.Context))).ctx
}

// wrap returns the C tensor t as an ollama tensor of the same backend as like.
func wrap(like ml.Tensor, t *C.struct_ggml_tensor) ml.Tensor {
	out := *like.(*ggmlbe.Tensor)
	header(&out).t = t
	return &out
}

// opArgs is C memory for the arguments of one graph's custom operations:
// ggml keeps pointers to them until the graph has been computed. Free it
// after that.
type opArgs struct{ blocks []unsafe.Pointer }

func (a *opArgs) alloc(size C.size_t) unsafe.Pointer {
	p := C.calloc(1, size)
	if p == nil {
		panic(fmt.Errorf("out of memory for %d bytes of kernel arguments", size))
	}
	a.blocks = append(a.blocks, p)
	return p
}

func (a *opArgs) free() {
	for _, p := range a.blocks {
		C.free(p)
	}
	a.blocks = nil
}

// attention describes one packed attention call over sequences of the
// given lengths, packed one after another.
func (a *opArgs) attention(lens []int, heads, headDim int, scale float64) *C.actor_attn {
	p := (*C.actor_attn)(a.alloc(C.sizeof_actor_attn))
	start := unsafe.Slice((*int32)(a.alloc(C.size_t(len(lens)+1)*4)), len(lens)+1)
	for i, l := range lens {
		start[i+1] = start[i] + int32(l)
	}
	p.heads, p.head_dim, p.embed, p.seqs = C.int(heads), C.int(headDim), C.int(heads*headDim), C.int(len(lens))
	p.scale, p.start, p.simd = C.float(scale), (*C.int32_t)(unsafe.Pointer(&start[0])), simdFlag()
	return p
}

// packedAttention returns softmax(QKᵀ·scale)·V computed within each
// sequence described by p, from q, k, v packed as [heads·headDim, tokens]
// (F32, contiguous).
func packedAttention(ctx ml.Context, q, k, v ml.Tensor, p *C.actor_attn) ml.Tensor {
	return wrap(q, C.actor_attention(rawContext(ctx), header(q).t, header(k).t, header(v).t, p))
}

// geluBias returns GELU(x + bias), bias broadcast over the rows of x (both
// F32 and contiguous).
func geluBias(ctx ml.Context, x, bias ml.Tensor) ml.Tensor {
	return wrap(x, C.actor_gelu_bias(rawContext(ctx), header(x).t, header(bias).t, simdFlag()))
}

// packedMatrix is an F32 weight matrix of m rows of k in linear.c's panel
// layout, in C memory.
type packedMatrix struct {
	p    *C.float
	k, m int
}

// packMatrix copies the F32 matrix w ([k, m]) into the panel layout and
// returns the pages of w's own data to the OS: w must not be used after.
func packMatrix(w ml.Tensor) (*packedMatrix, error) {
	k, m := w.Dim(0), w.Dim(1)
	src := C.ggml_get_data(header(w).t)
	p := C.actor_pack_weights((*C.float)(src), C.int(k), C.int(m))
	if p == nil {
		return nil, fmt.Errorf("out of memory packing a %d×%d matrix", m, k)
	}
	C.actor_release_pages(src, C.size_t(k*m*4))
	return &packedMatrix{p: p, k: k, m: m}, nil
}

func (w *packedMatrix) free() { C.actor_free_weights(w.p) }

// linear returns w·x + bias, then GELU when gelu is set, for x [k, n]
// (F32, contiguous): [m, n].
func (a *opArgs) linear(ctx ml.Context, w *packedMatrix, x, bias ml.Tensor, gelu bool) ml.Tensor {
	if x.Dim(0) != w.k || bias.Dim(0) != w.m {
		panic(fmt.Errorf("linear layer of %d×%d with input rows of %d and %d biases", w.m, w.k, x.Dim(0), bias.Dim(0)))
	}
	p := (*C.actor_linear)(a.alloc(C.sizeof_actor_linear))
	p.w, p.x, p.bias = w.p, header(x).t, header(bias).t
	p.k, p.m, p.n, p.simd = C.int(w.k), C.int(w.m), C.int(x.Dim(1)), simdFlag()
	if gelu {
		p.gelu = 1
	}
	return wrap(x, C.actor_linear_op(rawContext(ctx), p))
}
