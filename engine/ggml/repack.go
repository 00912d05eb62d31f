package ggml

/*
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

#ifdef GGML_USE_CPU_REPACK
// ggml's C API, linked in from ollama's ml/backend/ggml/ggml/src, whose
// headers are not on this package's include path: declared here with
// opaque pointers.
struct ggml_tensor;
struct ggml_context;
typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer * ggml_backend_buffer_t;
typedef struct ggml_backend_device * ggml_backend_dev_t;
typedef struct ggml_backend_reg * ggml_backend_reg_t;
struct ggml_init_params { size_t mem_size; void * mem_buffer; bool no_alloc; };

struct ggml_context * ggml_init(struct ggml_init_params params);
void ggml_free(struct ggml_context * ctx);
size_t ggml_tensor_overhead(void);
struct ggml_tensor * ggml_dup_tensor(struct ggml_context * ctx, const struct ggml_tensor * src);
size_t ggml_nbytes(const struct ggml_tensor * tensor);
int ggml_cpu_has_avx2(void);
ggml_backend_dev_t ggml_backend_dev_by_type(int type);
ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device);
void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name);
const char * ggml_backend_buft_name(ggml_backend_buffer_type_t buft);
ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
void ggml_backend_buffer_free(ggml_backend_buffer_t buffer);
void ggml_backend_tensor_set(struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);

// repack_buft returns the CPU backend's CPU_REPACK buffer type, or NULL.
static void * repack_buft(void) {
	if (!ggml_cpu_has_avx2()) return NULL;
	ggml_backend_dev_t dev = ggml_backend_dev_by_type(0); // GGML_BACKEND_DEVICE_TYPE_CPU
	if (!dev) return NULL;
	typedef ggml_backend_buffer_type_t * (*extra_bufts_fn)(ggml_backend_dev_t);
	extra_bufts_fn get = (extra_bufts_fn) ggml_backend_reg_get_proc_address(
		ggml_backend_dev_backend_reg(dev), "ggml_backend_dev_get_extra_bufts");
	if (!get) return NULL;
	for (ggml_backend_buffer_type_t * b = get(dev); b && *b; b++) {
		if (strcmp(ggml_backend_buft_name(*b), "CPU_REPACK") == 0) return *b;
	}
	return NULL;
}

static struct ggml_context * repack_context(int n) {
	struct ggml_init_params p = { ggml_tensor_overhead() * (size_t) n + 1024, NULL, true };
	return ggml_init(p);
}

static struct ggml_tensor * repack_dup(struct ggml_context * ctx, const struct ggml_tensor * t) {
	return ggml_dup_tensor(ctx, t);
}

// repack_alloc allocates the repacked tensors of ctx (NULL on failure).
static void * repack_alloc(struct ggml_context * ctx, void * buft) {
	return ggml_backend_alloc_ctx_tensors_from_buft(ctx, (ggml_backend_buffer_type_t) buft);
}

// repack_move repacks src's data into dst, then returns the whole pages of
// src's data to the OS (src is never read again).
static void repack_move(struct ggml_tensor * dst, const struct ggml_tensor * src) {
	ggml_backend_tensor_set(dst, ggml_get_data(src), 0, ggml_nbytes(src));
	actor_release_pages(ggml_get_data(src), ggml_nbytes(src));
}


static void repack_free(void * buf, struct ggml_context * ctx) {
	ggml_backend_buffer_free((ggml_backend_buffer_t) buf);
	ggml_free(ctx);
}
#else
struct ggml_context;
struct ggml_tensor;
static void * repack_buft(void) { return NULL; }
static struct ggml_context * repack_context(int n) { return NULL; }
static struct ggml_tensor * repack_dup(struct ggml_context * ctx, const struct ggml_tensor * t) { return NULL; }
static void * repack_alloc(struct ggml_context * ctx, void * buft) { return NULL; }
static void repack_move(struct ggml_tensor * dst, const struct ggml_tensor * src) {}
static void repack_free(void * buf, struct ggml_context * ctx) {}
#endif
*/
import "C"

import (
	"unsafe"

	"github.com/ollama/ollama/ml"
	ggmlbe "github.com/ollama/ollama/ml/backend/ggml"
)

// Weight layouts: ggml's CPU backend can store Q4_0, Q4_K and IQ4_NL
// matrices interleaved by 8 rows ("repacked"), which its AVX2 kernels
// multiply about a third faster than the file layout. llama.cpp does this
// at load time; ollama's backend does not, so the model does it after
// loading when ggml was compiled with -DGGML_USE_CPU_REPACK.

// repackTypes are the ggml type ids with an AVX2 repacked layout.
var repackTypes = map[uint32]bool{2: true, 12: true, 20: true} // Q4_0, Q4_K, IQ4_NL

// RepackAvailable reports whether this binary can repack weights: built
// with -DGGML_USE_CPU_REPACK, on a CPU with AVX2.
func RepackAvailable() bool { return C.repack_buft() != nil }

// tensorHeader mirrors the fields of ollama's ggml.Tensor (v0.17.4): the
// backend, the C tensor, and a sync function.
type tensorHeader struct {
	b    unsafe.Pointer
	t    *C.struct_ggml_tensor
	sync func()
}

func header(t ml.Tensor) *tensorHeader {
	return (*tensorHeader)(unsafe.Pointer(t.(*ggmlbe.Tensor)))
}

// repackedWeights holds the repacked copies of a model's matrices.
type repackedWeights struct {
	ctx *C.struct_ggml_context
	buf unsafe.Pointer
	n   int
}

// repack moves every matrix of a repackable type (given its ggml type in
// types, by tensor name) into a CPU_REPACK buffer and releases the pages
// of the original copy. It does nothing when unavailable.
func (m *Model) repack(types map[string]uint32) {
	buft := C.repack_buft()
	if buft == nil || unsafe.Sizeof(ggmlbe.Tensor{}) != unsafe.Sizeof(tensorHeader{}) {
		return
	}
	todo := m.matricesWhere(func(name string, w ml.Tensor) bool { return repackTypes[types[name]] && w.Dim(1)%8 == 0 })
	if len(todo) == 0 {
		return
	}
	ctx := C.repack_context(C.int(len(todo)))
	dst := make([]*C.struct_ggml_tensor, len(todo))
	for i, s := range todo {
		dst[i] = C.repack_dup(ctx, header(*s.w).t)
	}
	buf := C.repack_alloc(ctx, buft)
	if buf == nil {
		C.repack_free(nil, ctx)
		return
	}
	for i, s := range todo {
		C.repack_move(dst[i], header(*s.w).t)
		s.replace(dst[i])
	}
	m.repacked = &repackedWeights{ctx: ctx, buf: buf, n: len(todo)}
}

func (r *repackedWeights) free() {
	if r != nil {
		C.repack_free(r.buf, r.ctx)
	}
}
