// Element-wise math shared by the encoder kernels: e^x and the exact GELU,
// scalar and as AVX2 vectors.
#ifndef ACTOR_VECMATH_H
#define ACTOR_VECMATH_H

#include <math.h>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ACTOR_AVX2 1
#endif

// gelu_exact is BERT's GELU, x·Φ(x), as ggml computes it.
static inline float gelu_exact(float v) { return 0.5f * v * (1.0f + erff(v * (float) M_SQRT1_2)); }

#ifdef ACTOR_AVX2
// exp256 is e^x for x in [-87.3, 88]: Cody-Waite reduction to
// r in [-ln2/2, ln2/2], a degree-7 Taylor polynomial (error < 8e-9
// relative; about 1e-7 overall in float32), and 2^n put into the exponent
// bits. Inputs outside the range are clamped to it; NaN stays NaN.
static inline __m256 exp256(__m256 x) {
	x = _mm256_min_ps(_mm256_set1_ps(88.0f), _mm256_max_ps(_mm256_set1_ps(-87.3f), x));
	__m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
		_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187e-06f), r);
	__m256 p = _mm256_set1_ps(1.0f / 5040);
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
	__m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
	return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

// gelu256 is GELU(v) = v·Φ(v) = ½·v·erfc(-v/√2), with erfc of a negative
// argument as 2 - erfc of its absolute value, and erfc(z) for z ≥ 0 by the
// Chebyshev fit of Numerical Recipes (§6.2, erfcc; relative error below
// 1.2e-7 in exact arithmetic). In float32 the result is within 2.5e-7·|v|
// of the exact GELU (what ggml's ½·v·(1 + erff(v/√2)) loses to
// cancellation too); for v below about -13, where GELU is below 1e-37, it
// returns about -1e-38.
static inline __m256 gelu256(__m256 v) {
	static const float coeffs[] = {0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
		-0.18628806f, 0.09678418f, 0.37409196f, 1.00002368f, -1.26551223f};
	__m256 z = _mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v), _mm256_set1_ps((float) M_SQRT1_2));
	__m256 one = _mm256_set1_ps(1.0f);
	__m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), z, one));
	__m256 p = _mm256_setzero_ps();
	for (unsigned i = 0; i < sizeof coeffs / sizeof coeffs[0]; i++) p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(coeffs[i]));
	__m256 e = _mm256_mul_ps(t, exp256(_mm256_fnmadd_ps(z, z, p)));
	__m256 neg = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ);
	__m256 c = _mm256_blendv_ps(_mm256_sub_ps(_mm256_set1_ps(2.0f), e), e, neg);
	return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), c);
}
#endif

#endif
