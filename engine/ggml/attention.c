// Packed multi-head attention as a ggml custom operation.
//
// ggml computes attention as generic matrix products whose inner size is
// the head size (32 for MiniLM), where its dot-product kernels spend most
// of their time on horizontal sums, plus gathers into padded blocks, a mask
// and a separate softmax. This kernel works on each sequence's own span of
// the packed tokens, builds scores from outer products over a packed Kᵀ,
// and mixes the values the same way.

#include <stdlib.h>

#include "kernels.h"
#include "vecmath.h"

// ROWS query rows are computed together (AVX2): 12 accumulators of scores.
#define ROWS 6

// head is one (sequence, head) pair of a packed attention call: rows of
// n tokens, the head's slice of a token at row*stride.
typedef struct {
	const float * q, * k, * v;
	float * out;
	int n, stride, hd;
	float scale;
} head;

// attend_portable computes one head with plain loops; s holds n floats.
static void attend_portable(const head * h, float * s) {
	for (int i = 0; i < h->n; i++) {
		const float * qi = h->q + (size_t) i * h->stride;
		float max = -INFINITY;
		for (int j = 0; j < h->n; j++) {
			const float * kj = h->k + (size_t) j * h->stride;
			float dot = 0;
			for (int d = 0; d < h->hd; d++) dot += qi[d] * kj[d];
			s[j] = dot;
			if (dot > max) max = dot;
		}
		float sum = 0;
		for (int j = 0; j < h->n; j++) {
			s[j] = expf((s[j] - max) * h->scale);
			sum += s[j];
		}
		float * oi = h->out + (size_t) i * h->stride;
		for (int d = 0; d < h->hd; d++) oi[d] = 0;
		for (int j = 0; j < h->n; j++) {
			const float * vj = h->v + (size_t) j * h->stride;
			float w = s[j] / sum;
			for (int d = 0; d < h->hd; d++) oi[d] += w * vj[d];
		}
	}
}

#ifdef ACTOR_AVX2
// scores_avx2 writes S[r][j] = q_r·k_j for ROWS rows (row pointers q[r])
// and the np (a multiple of 8) columns of kt, Kᵀ packed as hd rows of np.
static void scores_avx2(const float * const q[ROWS], const float * kt, int np, int hd, float * s) {
	int j = 0;
	for (; j + 16 <= np; j += 16) {
		__m256 c[ROWS][2];
		for (int r = 0; r < ROWS; r++) c[r][0] = c[r][1] = _mm256_setzero_ps();
		for (int d = 0; d < hd; d++) {
			__m256 k0 = _mm256_loadu_ps(kt + (size_t) d * np + j), k1 = _mm256_loadu_ps(kt + (size_t) d * np + j + 8);
			for (int r = 0; r < ROWS; r++) {
				__m256 a = _mm256_broadcast_ss(q[r] + d);
				c[r][0] = _mm256_fmadd_ps(a, k0, c[r][0]);
				c[r][1] = _mm256_fmadd_ps(a, k1, c[r][1]);
			}
		}
		for (int r = 0; r < ROWS; r++) {
			_mm256_storeu_ps(s + (size_t) r * np + j, c[r][0]);
			_mm256_storeu_ps(s + (size_t) r * np + j + 8, c[r][1]);
		}
	}
	if (j < np) { // one block of 8 left
		__m256 c[ROWS];
		for (int r = 0; r < ROWS; r++) c[r] = _mm256_setzero_ps();
		for (int d = 0; d < hd; d++) {
			__m256 k0 = _mm256_loadu_ps(kt + (size_t) d * np + j);
			for (int r = 0; r < ROWS; r++) c[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(q[r] + d), k0, c[r]);
		}
		for (int r = 0; r < ROWS; r++) _mm256_storeu_ps(s + (size_t) r * np + j, c[r]);
	}
}

// softmax_avx2 turns the n scores of the row s into exp((s - max)·scale)
// and returns their sum (the padding after them is left as it is: nothing
// reads it).
static float softmax_avx2(float * s, int n, float scale) {
	__m256 vmax = _mm256_set1_ps(-INFINITY);
	int j = 0;
	for (; j + 8 <= n; j += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(s + j));
	float lanes[8];
	_mm256_storeu_ps(lanes, vmax);
	float max = lanes[0];
	for (int t = 1; t < 8; t++) max = lanes[t] > max ? lanes[t] : max;
	for (; j < n; j++) max = s[j] > max ? s[j] : max;
	vmax = _mm256_set1_ps(max);
	__m256 vscale = _mm256_set1_ps(scale), sum = _mm256_setzero_ps();
	for (j = 0; j + 8 <= n; j += 8) {
		__m256 e = exp256(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(s + j), vmax), vscale));
		_mm256_storeu_ps(s + j, e);
		sum = _mm256_add_ps(sum, e);
	}
	float tail = 0;
	if (j < n) { // the last partial block: only the lanes before n are kept
		__m256 e = exp256(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(s + j), vmax), vscale));
		float es[8];
		_mm256_storeu_ps(es, e);
		for (int t = 0; j + t < n; t++) {
			s[j + t] = es[t];
			tail += es[t];
		}
	}
	_mm256_storeu_ps(lanes, sum);
	return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7] + tail;
}

// mix_avx2 writes out_r = Σ_j p[r][j]·v_j · inv[r] for two rows, the
// weights p (rows np wide) over n values.
static void mix_avx2(const head * h, const float * p0, const float * p1, float * o0, float * o1,
	float inv0, float inv1) {
	int d = 0;
	for (; d + 32 <= h->hd; d += 32) {
		__m256 a[4], b[4];
		for (int t = 0; t < 4; t++) a[t] = b[t] = _mm256_setzero_ps();
		for (int j = 0; j < h->n; j++) {
			const float * vj = h->v + (size_t) j * h->stride + d;
			__m256 w0 = _mm256_broadcast_ss(p0 + j), w1 = _mm256_broadcast_ss(p1 + j);
			for (int t = 0; t < 4; t++) {
				__m256 x = _mm256_loadu_ps(vj + 8 * t);
				a[t] = _mm256_fmadd_ps(w0, x, a[t]);
				b[t] = _mm256_fmadd_ps(w1, x, b[t]);
			}
		}
		for (int t = 0; t < 4; t++) {
			_mm256_storeu_ps(o0 + d + 8 * t, _mm256_mul_ps(a[t], _mm256_set1_ps(inv0)));
			if (o1) _mm256_storeu_ps(o1 + d + 8 * t, _mm256_mul_ps(b[t], _mm256_set1_ps(inv1)));
		}
	}
	for (; d < h->hd; d += 8) {
		__m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
		for (int j = 0; j < h->n; j++) {
			__m256 x = _mm256_loadu_ps(h->v + (size_t) j * h->stride + d);
			a = _mm256_fmadd_ps(_mm256_broadcast_ss(p0 + j), x, a);
			b = _mm256_fmadd_ps(_mm256_broadcast_ss(p1 + j), x, b);
		}
		_mm256_storeu_ps(o0 + d, _mm256_mul_ps(a, _mm256_set1_ps(inv0)));
		if (o1) _mm256_storeu_ps(o1 + d, _mm256_mul_ps(b, _mm256_set1_ps(inv1)));
	}
}

// attend_avx2 computes one head whose size is a multiple of 8. kt holds
// hd×np floats and s ROWS×np, np being n rounded up to 8.
static void attend_avx2(const head * h, float * kt, float * s) {
	int np = (h->n + 7) & ~7;
	for (int d = 0; d < h->hd; d++) {
		float * row = kt + (size_t) d * np;
		for (int j = 0; j < h->n; j++) row[j] = h->k[(size_t) j * h->stride + d];
		for (int j = h->n; j < np; j++) row[j] = 0;
	}
	for (int i0 = 0; i0 < h->n; i0 += ROWS) {
		int rows = h->n - i0 < ROWS ? h->n - i0 : ROWS;
		const float * q[ROWS];
		for (int r = 0; r < ROWS; r++) q[r] = h->q + (size_t) (i0 + (r < rows ? r : 0)) * h->stride;
		scores_avx2(q, kt, np, h->hd, s);
		float inv[ROWS];
		for (int r = 0; r < rows; r++) inv[r] = 1.0f / softmax_avx2(s + (size_t) r * np, h->n, h->scale);
		for (int r = 0; r < rows; r += 2) {
			float * o0 = h->out + (size_t) (i0 + r) * h->stride;
			float * o1 = r + 1 < rows ? o0 + h->stride : NULL;
			const float * p1 = s + (size_t) (r + (o1 ? 1 : 0)) * np;
			mix_avx2(h, s + (size_t) r * np, p1, o0, o1, inv[r], o1 ? inv[r + 1] : 0);
		}
	}
}
#endif

// attention_op is the custom operation: the (sequence, head) pairs dealt
// out to the threads in turn (sequences come sorted by length, so each
// thread gets a similar share of the work).
static void attention_op(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b,
	const struct ggml_tensor * c, int ith, int nth, void * userdata) {
	const actor_attn * p = userdata;
	int longest = 0;
	for (int i = 0; i < p->seqs; i++) {
		int n = p->start[i + 1] - p->start[i];
		longest = n > longest ? n : longest;
	}
	int np = (longest + 7) & ~7;
	float * scratch = malloc(sizeof(float) * (size_t) np * (size_t) (p->head_dim + ROWS));
	if (!scratch) abort(); // as ggml does when out of memory
	const float * q = ggml_get_data(a), * k = ggml_get_data(b), * v = ggml_get_data(c);
	float * out = ggml_get_data(dst);
	for (int item = ith; item < p->seqs * p->heads; item += nth) {
		int seq = item / p->heads, hh = item % p->heads;
		size_t off = (size_t) p->start[seq] * p->embed + (size_t) hh * p->head_dim;
		head h = {q + off, k + off, v + off, out + off, p->start[seq + 1] - p->start[seq], p->embed, p->head_dim,
			p->scale};
#ifdef ACTOR_AVX2
		if (p->simd && p->head_dim % 8 == 0) {
			attend_avx2(&h, scratch, scratch + (size_t) p->head_dim * np);
			continue;
		}
#endif
		attend_portable(&h, scratch);
	}
	free(scratch);
}

struct ggml_tensor * actor_attention(struct ggml_context * ctx, struct ggml_tensor * q,
	struct ggml_tensor * k, struct ggml_tensor * v, actor_attn * p) {
	return ggml_map_custom3(ctx, q, k, v, attention_op, GGML_ALL_THREADS, p);
}
