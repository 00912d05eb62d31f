package ggml

/*
#include <stdint.h>
#include <string.h>

#include "kernels.h"

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer * ggml_backend_buffer_t;
struct ggml_init_params_w { size_t mem_size; void * mem_buffer; _Bool no_alloc; };

struct ggml_context * ggml_init(struct ggml_init_params_w params);
void ggml_free(struct ggml_context * ctx);
size_t ggml_tensor_overhead(void);
struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, int type, int64_t ne0, int64_t ne1);
struct ggml_tensor * ggml_set_name(struct ggml_tensor * tensor, const char * name);
const char * ggml_get_name(const struct ggml_tensor * tensor);
size_t ggml_nbytes(const struct ggml_tensor * tensor);
ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);
ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
void ggml_backend_buffer_free(ggml_backend_buffer_t buffer);

#define WIDEN_Q8_0 8 // GGML_TYPE_Q8_0

static struct ggml_context * widen_context(int n) {
	struct ggml_init_params_w p = { ggml_tensor_overhead() * (size_t) n + 1024, NULL, 1 };
	return ggml_init(p);
}

static struct ggml_tensor * widen_new(struct ggml_context * ctx, const struct ggml_tensor * src, int64_t ne0, int64_t ne1) {
	struct ggml_tensor * t = ggml_new_tensor_2d(ctx, WIDEN_Q8_0, ne0, ne1);
	ggml_set_name(t, ggml_get_name(src));
	return t;
}

static void * widen_alloc(struct ggml_context * ctx) {
	return ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
}

static void widen_free(void * buf, struct ggml_context * ctx) {
	if (buf) ggml_backend_buffer_free((ggml_backend_buffer_t) buf);
	ggml_free(ctx);
}

// widen_q5_0 rewrites n Q5_0 blocks (fp16 scale d, 4 bytes of high bits,
// 16 bytes of low nibbles: value j is d·(q_j − 16), q_j in 0..31) as Q8_0
// blocks (fp16 scale d, 32 signed bytes: value j is d·q8_j) with the same
// scale and q8_j = q_j − 16, exactly the same numbers. Then it returns the
// source's whole pages to the OS.
static void widen_q5_0(void * dst, const void * src, int64_t n, size_t src_bytes) {
	const uint8_t * s = (const uint8_t *) src;
	int8_t * d = (int8_t *) dst;
	for (int64_t b = 0; b < n; b++, s += 22, d += 34) {
		uint32_t qh;
		memcpy(d, s, 2);
		memcpy(&qh, s + 2, 4);
		const uint8_t * qs = s + 6;
		int8_t * q8 = d + 2;
		for (int j = 0; j < 16; j++) {
			q8[j]      = (int8_t) (((qs[j] & 0x0F) | (((qh >> j) << 4) & 0x10)) - 16);
			q8[j + 16] = (int8_t) (((qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)) - 16);
		}
	}
	actor_release_pages((void *) src, src_bytes);
}
*/
import "C"

import (
	"strconv"
	"unsafe"

	"github.com/ollama/ollama/ml"
	ggmlbe "github.com/ollama/ollama/ml/backend/ggml"
)

// Widening: a Q5_0 matrix holds 5-bit integers times a float16 scale per
// block of 32, which Q8_0 (8-bit integers, the same block and scale) holds
// exactly. ggml multiplies Q8_0 matrices with fewer instructions per block
// (no high bits to merge), so a Q5_0 model computes the same products
// faster — about 1.4× in a 512-token prefill of Qwen2.5-Coder-0.5B, whose
// file is mostly Q5_0 — for 12 more bytes per 32 weights. The model
// widens its Q5_0 matrices after loading unless Options.NoWiden is set.

const (
	typeQ5_0 = 6 // GGML_TYPE_Q5_0
	typeQ8_0 = 8 // GGML_TYPE_Q8_0
	// Bytes per block of 32 weights.
	q5_0Bytes, q8_0Bytes = 22, 34
)

// widenedWeights holds the Q8_0 copies of a model's Q5_0 matrices.
type widenedWeights struct {
	ctx *C.struct_ggml_context
	buf unsafe.Pointer
	n   int
	// bytes is the memory the copies took beyond the Q5_0 originals.
	bytes int64
}

// weightSlot is a weight matrix of the model and its tensor name.
type weightSlot struct {
	w    *ml.Tensor
	name string
}

// matrices lists the model's weight matrices by name (the output layer
// under its own name even when it is tied to the embedding).
func (m *Model) matrices() []weightSlot {
	var out []weightSlot
	for i := range m.layers {
		l := &m.layers[i]
		pre := "blk." + strconv.Itoa(i) + "."
		out = append(out, weightSlot{&l.wq, pre + "attn_q.weight"}, weightSlot{&l.wk, pre + "attn_k.weight"},
			weightSlot{&l.wv, pre + "attn_v.weight"}, weightSlot{&l.wo, pre + "attn_output.weight"},
			weightSlot{&l.wg, pre + "ffn_gate.weight"}, weightSlot{&l.wu, pre + "ffn_up.weight"},
			weightSlot{&l.wd, pre + "ffn_down.weight"})
	}
	return append(out, weightSlot{&m.output, "output.weight"})
}

// matricesWhere lists the model's matrices that keep selects, skipping
// absent ones and any whose C tensor does not carry its name (the mirror
// of ollama's tensor would be reading the wrong field).
func (m *Model) matricesWhere(keep func(name string, w ml.Tensor) bool) []weightSlot {
	var out []weightSlot
	for _, s := range m.matrices() {
		if *s.w != nil && keep(s.name, *s.w) && C.GoString(C.ggml_get_name(header(*s.w).t)) == s.name {
			out = append(out, s)
		}
	}
	return out
}

// replace points the slot's weight at another C tensor of the same shape.
func (s weightSlot) replace(t *C.struct_ggml_tensor) {
	wrapped := *(*s.w).(*ggmlbe.Tensor)
	header(&wrapped).t = t
	*s.w = &wrapped
}

// widen replaces every Q5_0 matrix (given its ggml type in types, by
// tensor name) by its exact Q8_0 copy and releases the pages of the
// original.
func (m *Model) widen(types map[string]uint32) {
	if unsafe.Sizeof(ggmlbe.Tensor{}) != unsafe.Sizeof(tensorHeader{}) {
		return
	}
	todo := m.matricesWhere(func(name string, _ ml.Tensor) bool { return types[name] == typeQ5_0 })
	if len(todo) == 0 {
		return
	}
	ctx := C.widen_context(C.int(len(todo)))
	dst := make([]*C.struct_ggml_tensor, len(todo))
	for i, s := range todo {
		dst[i] = C.widen_new(ctx, header(*s.w).t, C.int64_t((*s.w).Dim(0)), C.int64_t((*s.w).Dim(1)))
	}
	buf := C.widen_alloc(ctx)
	if buf == nil {
		C.widen_free(nil, ctx)
		return
	}
	var extra int64
	for i, s := range todo {
		src := header(*s.w).t
		n := int64(C.ggml_nbytes(src)) / q5_0Bytes
		C.widen_q5_0(C.ggml_get_data(dst[i]), C.ggml_get_data(src), C.int64_t(n), C.ggml_nbytes(src))
		extra += n * (q8_0Bytes - q5_0Bytes)
		s.replace(dst[i])
	}
	m.widened = &widenedWeights{ctx: ctx, buf: unsafe.Pointer(buf), n: len(todo), bytes: extra}
}

func (w *widenedWeights) free() {
	if w != nil {
		C.widen_free(w.buf, w.ctx)
	}
}

// Widened is the number of Q5_0 matrices held as Q8_0, and the bytes that
// took beyond the file's.
func (m *Model) Widened() (int, int64) {
	if m.widened == nil {
		return 0, 0
	}
	return m.widened.n, m.widened.bytes
}
