// Package engine runs GGUF decoder models (Llama family: SmolLM2,
// DeepSeek-Coder with linear RoPE scaling, CodeLlama; Qwen2) token by token
// and exposes the per-token signals ACToR needs: logits, entropy, top-1,
// the final hidden state, teacher-forced scores and last-layer attention.
//
// # Loading
//
//	m, err := engine.Load(path, engine.Options{Threads: 2})
//	defer m.Close()
//	tok, err := tokenizer.FromGGUF(m.GGUF()) // the tokenizer lives in its own package
//
// Load validates the file with gguf.Open and checks every tensor's name,
// shape and type against the metadata before the tensor backend (ggml,
// package engine/ggml) sees it; bad files give one-line errors naming the
// file. Weights are copied into memory (no mmap). Options.Threads is
// process-wide in ggml: the last Load sets it for every model.
//
// # Sessions
//
// A Session owns a KV cache of Options.ContextLength positions:
//
//	s, _ := m.NewSession()
//	defer s.Close()
//	s.Hidden = true                 // also return Prediction.Hidden
//	p, err := s.Prefill(promptIDs)  // reuses the longest cached common prefix
//	for {
//		id := sampler.Sample(p.Logits)
//		p, err = s.Step(id)         // p predicts the token after id
//	}
//
// Prediction carries Logits (Config.Vocab), Hidden (Config.Embed, after the
// final norm: Hugging Face's hidden_states[-1]), Entropy (nats), Top1 and
// LogZ (LogProb(id) = Logits[id] - LogZ). Truncate(n) forgets all but the
// first n tokens; Prefill of a sequence sharing a prefix with the cache
// recomputes only from the first difference. A sequence longer than the
// context fails with an error wrapping ErrContextFull.
//
// # Several sequences at once
//
// PrefillBatch(sessions, seqs) brings several sessions to their sequences
// in shared forward passes: the weight matrices see up to three sessions'
// next tokens together, attention runs per session over its own cache, so
// stepping n sessions by one token each reads the weights ⌈n/3⌉ times
// instead of n. Sessions whose sequences share a prefix with an earlier
// one's in the same call copy it (Fork) instead of computing it: n samples
// of one prompt prefill it once. ggml's repacked quantised matrices round
// four or more rows of one pass with another kernel than one to three, so
// three is the limit and a session computing several tokens runs its own
// passes: a batched session's logits equal, bit for bit, those of the
// session run alone.
//
// # Teacher forcing
//
//	sc, err := s.Score(promptIDs, targetIDs)
//
// runs prompt+target in one forward pass (chunked to bound memory) and gives,
// for each target token i, the top-1 prediction, entropy and log-probability
// of target[i] at the position before it, the hidden state there, and
// Attention[j][i]: the last layer's head-averaged attention target token j
// pays token i (i < j). Influence(i, 5) is ACToR's top-5 influence score.
//
// # Numerics
//
// The default graph is llama.cpp's (float16 KV cache, attention as two
// matrix products around a softmax, keys padded to multiples of 256): on
// SmolLM2 its logits are bit-identical to llama.cpp's. ggml picks matmul
// kernels by shape, so one token and a batch of tokens round differently,
// and quantised models amplify that through their layers: Score and
// step-by-step decoding agree closely but not exactly. With
// Options.FlashAttention attention computes every row alone, whatever the
// batch, and so do the matrix products of the types ggml stores as they
// are (Q4_1, Q5_0, Q8_0, …: SmolLM2's): there Score equals step decoding
// and a reused prefix equals a fresh prefill bit for bit (decoding is then
// about 20% slower on CPU). The types ggml repacks for its CPU kernels
// (Q4_0, Q4_K, IQ4_NL on AVX2) multiply the first rows of a pass four at a
// time with another kernel than its last n mod 4 rows, so where a model
// has them (Qwen2.5-Coder's Q4_K matrices) a row rounds by its place in
// its pass, flash attention or not: on Qwen2.5-Coder-0.5B, Score and steps
// give log-probabilities up to 0.12 apart (2 of 40 top-1 differ), and a
// cache's rows depend on the passes that computed them. With F32 weights
// both graphs match Hugging Face transformers to ~1e-5.
//
// # Sampling
//
// NewSampler(SamplerConfig{Temperature, TopK, TopP, Seed}) draws tokens:
// greedy when Temperature is 0, otherwise temperature, top-k and top-p in
// Hugging Face's order, reproducible for a given seed.
package engine
