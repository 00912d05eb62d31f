// The encoder's feed-forward arithmetic as ggml custom operations: linear
// layers y = W·x + b (optionally GELU) over weights packed once at load
// time, and bias+GELU on its own for weights ggml multiplies.
//
// ggml multiplies F32 matrices with llamafile's tinyBLAS, which forms each
// output as a dot product of a weight row and an input row: every 4×3 tile
// ends in horizontal sums and, for the long rows of the feed-forward
// down-projection, streams from L2. Here the weight matrix is stored as
// panels of 16 outputs, k-major, and a 6×16 register tile is built from
// outer products (BLIS's scheme): 12 FMAs per step of k against 8 loads,
// the panel slice of a k-block staying in L1. The bias and GELU are applied
// in registers on the last k-block. ggml's exact GELU calls the scalar
// erff once per element; gelu256 (vecmath.h) is a vectorised erfc.

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernels.h"
#include "vecmath.h"

#define PANEL 16   // outputs per packed panel: two AVX2 vectors
#define TILE 6     // input rows per register tile
#define KBLOCK 256 // k per block: a panel slice of 16 KiB stays in L1
#define NBLOCK 96  // input rows per block: 96 KiB of x per k-block stays in L2

int actor_have_simd(void) {
#ifdef ACTOR_AVX2
	return 1;
#else
	return 0;
#endif
}

float * actor_pack_weights(const float * w, int k, int m) {
	int panels = (m + PANEL - 1) / PANEL;
	size_t bytes = sizeof(float) * (size_t) panels * PANEL * (size_t) k;
	float * p = aligned_alloc(64, (bytes + 63) / 64 * 64);
	if (!p) return NULL;
	for (int pi = 0; pi < panels; pi++) {
		float * dst = p + (size_t) pi * PANEL * k;
		for (int kk = 0; kk < k; kk++) {
			for (int c = 0; c < PANEL; c++) {
				int row = pi * PANEL + c;
				dst[(size_t) kk * PANEL + c] = row < m ? w[(size_t) row * k + kk] : 0;
			}
		}
	}
	return p;
}

void actor_free_weights(float * p) { free(p); }

void actor_release_pages(void * p, size_t n) {
	uintptr_t page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t) p + page - 1) / page * page, hi = ((uintptr_t) p + n) / page * page;
	if (hi > lo) madvise((void *) lo, hi - lo, MADV_DONTNEED);
}

// A tile is rows (≤ TILE) input rows of x (row stride k) times the panel
// slice bp (kc steps of PANEL floats), written to y (row stride m) in
// columns 0..cols: first starts from zero instead of y's values; last adds
// the bias (PANEL floats) and applies GELU when gelu is set.
typedef struct {
	int rows, cols, kc, k, m, first, last, gelu;
	const float * x, * bp, * bias;
	float * y;
} tile;

static void tile_portable(const tile * t) {
	for (int r = 0; r < t->rows; r++) {
		for (int c = 0; c < t->cols; c++) {
			float acc = t->first ? 0 : t->y[(size_t) r * t->m + c];
			for (int kk = 0; kk < t->kc; kk++) acc += t->x[(size_t) r * t->k + kk] * t->bp[(size_t) kk * PANEL + c];
			if (t->last) {
				acc += t->bias[c];
				if (t->gelu) acc = gelu_exact(acc);
			}
			t->y[(size_t) r * t->m + c] = acc;
		}
	}
}

#ifdef ACTOR_AVX2
static void tile_avx2(const tile * t) {
	const float * a[TILE];
	for (int r = 0; r < TILE; r++) a[r] = t->x + (size_t) (r < t->rows ? r : 0) * t->k;
	__m256 c[TILE][2];
	for (int r = 0; r < TILE; r++) c[r][0] = c[r][1] = _mm256_setzero_ps();
	const float * bp = t->bp;
	for (int kk = 0; kk < t->kc; kk++, bp += PANEL) {
		__m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8);
		for (int r = 0; r < TILE; r++) {
			__m256 av = _mm256_broadcast_ss(a[r] + kk);
			c[r][0] = _mm256_fmadd_ps(av, b0, c[r][0]);
			c[r][1] = _mm256_fmadd_ps(av, b1, c[r][1]);
		}
	}
	// Through memory, so that c is only indexed by constants and stays in
	// registers in the loop above.
	float acc[TILE][PANEL], buf[PANEL];
	for (int r = 0; r < TILE; r++) {
		_mm256_storeu_ps(acc[r], c[r][0]);
		_mm256_storeu_ps(acc[r] + 8, c[r][1]);
	}
	for (int r = 0; r < t->rows; r++) {
		float * yr = t->y + (size_t) r * t->m;
		if (t->cols < PANEL) { // the last, partial panel goes through a buffer
			memset(buf, 0, sizeof buf);
			memcpy(buf, yr, sizeof(float) * (size_t) t->cols);
			yr = buf;
		}
		__m256 v0 = _mm256_loadu_ps(acc[r]), v1 = _mm256_loadu_ps(acc[r] + 8);
		if (!t->first) {
			v0 = _mm256_add_ps(v0, _mm256_loadu_ps(yr));
			v1 = _mm256_add_ps(v1, _mm256_loadu_ps(yr + 8));
		}
		if (t->last) {
			v0 = _mm256_add_ps(v0, _mm256_loadu_ps(t->bias));
			v1 = _mm256_add_ps(v1, _mm256_loadu_ps(t->bias + 8));
			if (t->gelu) {
				v0 = gelu256(v0);
				v1 = gelu256(v1);
			}
		}
		_mm256_storeu_ps(yr, v0);
		_mm256_storeu_ps(yr + 8, v1);
		if (yr == buf) memcpy(t->y + (size_t) r * t->m, buf, sizeof(float) * (size_t) t->cols);
	}
}
#endif

// linear_op is the custom operation: the panels (output columns) split
// into contiguous ranges, one per thread; rows in blocks of NBLOCK, k in
// blocks of KBLOCK.
static void linear_op(struct ggml_tensor * dst, int ith, int nth, void * userdata) {
	const actor_linear * p = userdata;
	int panels = (p->m + PANEL - 1) / PANEL;
	int per = (panels + nth - 1) / nth, p0 = per * ith, p1 = p0 + per < panels ? p0 + per : panels;
	const float * x = ggml_get_data(p->x), * b = ggml_get_data(p->bias);
	float * y = ggml_get_data(dst);
	float bias[PANEL];
	tile t = {.k = p->k, .m = p->m, .gelu = p->gelu, .bias = bias};
	for (int n0 = 0; n0 < p->n; n0 += NBLOCK) {
		int n1 = n0 + NBLOCK < p->n ? n0 + NBLOCK : p->n;
		for (int k0 = 0; k0 < p->k; k0 += KBLOCK) {
			t.kc = p->k - k0 < KBLOCK ? p->k - k0 : KBLOCK;
			t.first = k0 == 0;
			t.last = k0 + t.kc == p->k;
			for (int pi = p0; pi < p1; pi++) {
				t.cols = p->m - pi * PANEL < PANEL ? p->m - pi * PANEL : PANEL;
				memset(bias, 0, sizeof bias);
				memcpy(bias, b + pi * PANEL, sizeof(float) * (size_t) t.cols);
				t.bp = p->w + (size_t) pi * PANEL * p->k + (size_t) k0 * PANEL;
				for (int i = n0; i < n1; i += TILE) {
					t.rows = n1 - i < TILE ? n1 - i : TILE;
					t.x = x + (size_t) i * p->k + k0;
					t.y = y + (size_t) i * p->m + pi * PANEL;
#ifdef ACTOR_AVX2
					if (p->simd) {
						tile_avx2(&t);
						continue;
					}
#endif
					tile_portable(&t);
				}
			}
		}
	}
}

struct ggml_tensor * actor_linear_op(struct ggml_context * ctx, actor_linear * p) {
	struct ggml_tensor * args[2] = {p->x, p->bias};
	return ggml_custom_4d(ctx, GGML_F32, p->m, p->n, 1, 1, args, 2, linear_op, GGML_ALL_THREADS, p);
}

// gelu_bias_op is the custom operation of actor_gelu_bias: rows of x split
// across threads.
static void gelu_bias_op(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b,
	int ith, int nth, void * userdata) {
	(void) userdata; // the AVX2 flag, unused without AVX2
	int64_t cols = ggml_nelements(b), rows = ggml_nelements(a) / cols;
	int64_t per = (rows + nth - 1) / nth, r0 = per * ith, r1 = r0 + per < rows ? r0 + per : rows;
	float * y = ggml_get_data(dst);
	const float * x = ggml_get_data(a), * bias = ggml_get_data(b);
	for (int64_t r = r0; r < r1; r++) {
		const float * xr = x + r * cols;
		float * yr = y + r * cols;
		int64_t c = 0;
#ifdef ACTOR_AVX2
		for (; userdata && c + 8 <= cols; c += 8) {
			__m256 v = _mm256_add_ps(_mm256_loadu_ps(xr + c), _mm256_loadu_ps(bias + c));
			_mm256_storeu_ps(yr + c, gelu256(v));
		}
		if (userdata && c < cols) { // the tail through a buffer
			float xs[8] = {0}, ys[8];
			for (int64_t i = c; i < cols; i++) xs[i - c] = xr[i] + bias[i];
			_mm256_storeu_ps(ys, gelu256(_mm256_loadu_ps(xs)));
			memcpy(yr + c, ys, (size_t) (cols - c) * sizeof(float));
			continue;
		}
#endif
		for (; c < cols; c++) yr[c] = gelu_exact(xr[c] + bias[c]);
	}
}

struct ggml_tensor * actor_gelu_bias(struct ggml_context * ctx, struct ggml_tensor * x,
	struct ggml_tensor * bias, int simd) {
	return ggml_map_custom2(ctx, x, bias, gelu_bias_op, GGML_ALL_THREADS, simd ? (void *) 1 : NULL);
}
