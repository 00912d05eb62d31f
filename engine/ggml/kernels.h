// Encoder kernels that ggml lacks or runs slowly on a CPU, added to ollama's
// ggml graphs as custom operations (kernels.go).
#ifndef ACTOR_KERNELS_H
#define ACTOR_KERNELS_H

#include <stdint.h>

struct ggml_context;
struct ggml_tensor;

// actor_attn is the shape of one packed attention call: tokens of several
// sequences one after another, each token a row of embed floats holding
// heads slices of head_dim.
typedef struct {
	int heads, head_dim, embed, seqs;
	float scale;  // multiplies QKᵀ before the softmax
	int simd;     // 1: AVX2 kernels (when compiled in), 0: portable C
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

// actor_have_simd reports whether the AVX2 kernels were compiled in.
int actor_have_simd(void);

#endif
