// Encoder kernels that ggml lacks or runs slowly on a CPU, added to ollama's
// ggml graphs as custom operations (kernels.go): packed attention
// (attention.c), linear layers over pre-packed weights and bias+GELU
// (linear.c).
#ifndef ACTOR_KERNELS_H
#define ACTOR_KERNELS_H

#include <stddef.h>
#include <stdint.h>

// ggml's C API, linked in from ollama's ml/backend/ggml/ggml/src, whose
// headers are not on this package's include path: declared here with
// opaque types.
struct ggml_context;
struct ggml_tensor;
typedef void (*ggml_custom2_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a,
	const struct ggml_tensor * b, int ith, int nth, void * userdata);
typedef void (*ggml_custom3_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a,
	const struct ggml_tensor * b, const struct ggml_tensor * c, int ith, int nth, void * userdata);
typedef void (*ggml_custom_op_t)(struct ggml_tensor * dst, int ith, int nth, void * userdata);
struct ggml_tensor * ggml_map_custom2(struct ggml_context * ctx, struct ggml_tensor * a,
	struct ggml_tensor * b, ggml_custom2_op_t fun, int n_tasks, void * userdata);
struct ggml_tensor * ggml_map_custom3(struct ggml_context * ctx, struct ggml_tensor * a,
	struct ggml_tensor * b, struct ggml_tensor * c, ggml_custom3_op_t fun, int n_tasks, void * userdata);
struct ggml_tensor * ggml_custom_4d(struct ggml_context * ctx, int type, int64_t ne0, int64_t ne1,
	int64_t ne2, int64_t ne3, struct ggml_tensor ** args, int n_args, ggml_custom_op_t fun, int n_tasks,
	void * userdata);
void * ggml_get_data(const struct ggml_tensor * tensor);
int64_t ggml_nelements(const struct ggml_tensor * tensor);
#define GGML_ALL_THREADS (-1) // GGML_N_TASKS_MAX
#define GGML_F32 0            // GGML_TYPE_F32

// actor_attn is the shape of one packed attention call: tokens of several
// sequences one after another, each token a row of embed floats holding
// heads slices of head_dim.
typedef struct {
	int heads, head_dim, embed, seqs;
	float scale;           // multiplies QKᵀ before the softmax
	int simd;              // 1: AVX2 kernels (when compiled in), 0: portable C
	const int32_t * start; // seqs+1 token offsets: sequence s is start[s] .. start[s+1]-1
} actor_attn;

// actor_attention adds softmax(QKᵀ·scale)·V within each sequence of the
// packed q, k, v ([embed, tokens], contiguous) to ctx: no padding, no mask.
struct ggml_tensor * actor_attention(struct ggml_context * ctx, struct ggml_tensor * q,
	struct ggml_tensor * k, struct ggml_tensor * v, actor_attn * p);

// actor_gelu_bias adds GELU(x + bias) to ctx, GELU being the exact
// x·Φ(x) of BERT (erf, not the tanh approximation); bias has one value per
// element of a row of x. simd selects the AVX2 kernel when compiled in.
struct ggml_tensor * actor_gelu_bias(struct ggml_context * ctx, struct ggml_tensor * x,
	struct ggml_tensor * bias, int simd);

// actor_pack_weights copies the F32 matrix w (m rows of k) into panels of
// 16 rows stored k-major (the last panel padded with zeros), the layout
// actor_linear reads. It returns NULL when out of memory; free the result
// with actor_free_weights.
float * actor_pack_weights(const float * w, int k, int m);
void actor_free_weights(float * packed);

// actor_release_pages returns the whole pages within n bytes at p to the
// OS: memory that is never read again (a matrix once packed).
void actor_release_pages(void * p, size_t n);

// actor_linear is one linear layer y = W·x + bias over packed weights:
// x is [k, n] (contiguous F32), y [m, n]. The operation reads x and bias
// through these pointers, not through its node's sources: right for a graph
// that runs on the CPU backend alone (the encoder's), not for one that
// ggml's scheduler splits across devices (it would substitute copies).
typedef struct {
	const float * w;                 // packed by actor_pack_weights
	struct ggml_tensor * x, * bias; // the input and the bias (m floats)
	int k, m, n;
	int gelu; // 1: y = GELU(W·x + bias)
	int simd; // 1: AVX2 kernels (when compiled in), 0: portable C
} actor_linear;

// actor_linear_op adds the layer p to ctx (p must outlive the computation).
struct ggml_tensor * actor_linear_op(struct ggml_context * ctx, actor_linear * p);

// actor_have_simd reports whether the AVX2 kernels were compiled in.
int actor_have_simd(void);

#endif
