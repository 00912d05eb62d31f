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

// useSIMD selects the AVX2 kernels of kernels.c when they are compiled in
// (tests turn it off to check the portable ones).
var useSIMD = C.actor_have_simd() == 1

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

// geluBias returns GELU(x + bias), bias broadcast over the rows of x (both
// F32 and contiguous).
func geluBias(ctx ml.Context, x, bias ml.Tensor) ml.Tensor {
	simd := C.int(0)
	if useSIMD {
		simd = 1
	}
	return wrap(x, C.actor_gelu_bias(rawContext(ctx), header(x).t, header(bias).t, simd))
}

// attnArgs is the C argument block of one packed attention call, in C
// memory because ggml keeps a pointer to it until the graph is computed.
type attnArgs struct{ p *C.actor_attn }

// newAttnArgs describes sequences of the given lengths packed one after
// another; free it after the graph that uses it has been computed.
func newAttnArgs(lens []int, heads, headDim int, scale float64) attnArgs {
	size := C.sizeof_actor_attn + C.size_t(len(lens)+1)*4
	mem := C.calloc(1, size)
	p := (*C.actor_attn)(mem)
	start := unsafe.Slice((*int32)(unsafe.Add(mem, C.sizeof_actor_attn)), len(lens)+1)
	for i, l := range lens {
		start[i+1] = start[i] + int32(l)
	}
	p.heads, p.head_dim, p.embed, p.seqs = C.int(heads), C.int(headDim), C.int(heads*headDim), C.int(len(lens))
	p.scale, p.start = C.float(scale), (*C.int32_t)(unsafe.Pointer(&start[0]))
	if useSIMD {
		p.simd = 1
	}
	return attnArgs{p}
}

func (a attnArgs) free() { C.free(unsafe.Pointer(a.p)) }

// packedAttention returns softmax(QKᵀ·scale)·V computed within each
// sequence of a, from q, k, v packed as [heads·headDim, tokens] (F32,
// contiguous).
func packedAttention(ctx ml.Context, q, k, v ml.Tensor, a attnArgs) ml.Tensor {
	return wrap(q, C.actor_attention(rawContext(ctx), header(q).t, header(k).t, header(v).t, a.p))
}
