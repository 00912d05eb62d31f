package generate

import (
	"hash/fnv"
	"regexp"
	"strings"
	"testing"

	"actor/engine"
	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
	"actor/tokenizer"
)

// tinyModel is a random-weight Llama (hidden 64, vocabulary 288, context
// 256, RoPE θ 1e6) with a byte-level toy vocabulary: about one token per
// character. With tinyTarget its greedy first judged token changes when the
// context switches from shout to double (found by trying the fixtures).
var tinyModel = testsupport.Path(testsupport.TinyModels + "/llama_theta1e6.gguf")

// loadTiny loads the tiny model with a float32 KV cache (exact reuse).
func loadTiny(t *testing.T) (*engine.Model, *tokenizer.Tokenizer) {
	t.Helper()
	return loadModel(t, tinyModel, engine.Options{Threads: 1, F32Cache: true})
}

// loadModel loads a GGUF model with its own tokenizer, closed when the
// test ends.
func loadModel(t *testing.T, path string, o engine.Options) (*engine.Model, *tokenizer.Tokenizer) {
	t.Helper()
	m, err := engine.Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	tok, err := tokenizer.FromGGUF(m.GGUF())
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// newDecoder returns a decoder of m with opt (none: the defaults), closed
// when the test ends.
func newDecoder(t *testing.T, m *engine.Model, tok *tokenizer.Tokenizer, opt ...DecoderOptions) *Decoder {
	t.Helper()
	var o DecoderOptions
	if len(opt) > 0 {
		o = opt[0]
	}
	d, err := NewDecoder(m, tok, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// tinyConfig decodes greedily, a few tokens, with a one-block context that
// fits the tiny model's 256 positions.
func tinyConfig() Config {
	c := DefaultConfig
	c.Temperature = 0
	c.MaxNewTokens = 12
	c.Budget = retrieve.Budget{MaxTokens: 100, MaxBlocks: 1}
	return c
}

// tinyRepo is a repository where the right context for app.py's run is
// known: lib/math.py's double; lib/text.py's shout is the wrong one.
var tinyRepo = map[string]string{
	"lib/math.py": "def double(x):\n    return 2 * x\n",
	"lib/text.py": "def shout(s):\n    return s.upper()\n",
	"app.py":      "def run(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)\n",
}

// tinyTarget is app.py's run.
var tinyTarget = retrieve.Target{ID: "app.py:1", Path: "app.py", Prompt: "def run(x):\n    \"\"\"Double x.\"\"\"\n    return ",
	Exclusion: retrieve.Exclusion{Path: "app.py", StartLine: 1}}

func block(c index.Candidate) retrieve.Result { return retrieve.Result{Candidate: c, Score: 1} }

// blockOf returns the corpus block of a file.
func blockOf(t *testing.T, c *Corpus, path string) index.Candidate {
	t.Helper()
	for _, b := range c.Blocks {
		if b.Path == path {
			return b
		}
	}
	t.Fatalf("no block of %s", path)
	return index.Candidate{}
}

// switchRetriever is a retrieval hook: the target prompt alone retrieves
// first, any longer query (a critical token's) retrieves second.
type switchRetriever struct {
	prompt        string
	first, second retrieve.Result
	queries       []string
}

func (s *switchRetriever) Retrieve(q string, _ retrieve.Exclusion) ([]retrieve.Result, error) {
	s.queries = append(s.queries, q)
	if q == s.prompt {
		return []retrieve.Result{s.first}, nil
	}
	return []retrieve.Result{s.second}, nil
}

// wordRE cuts a text into the test encoder's tokens: identifiers and
// numbers.
var wordRE = regexp.MustCompile(`[A-Za-z0-9_]+`)

// hashEncoder is a deterministic test encoder: each lower-cased identifier
// or number of a text is one token whose embedding is a signed one-hot vector at a hashed
// position, so texts sharing words have similar pooled vectors.
type hashEncoder struct{ dim int }

func (h hashEncoder) ID() string { return "hash-bow" }
func (h hashEncoder) Dim() int   { return h.dim }

func (h hashEncoder) Encode(texts []string) (retrieve.TokenBatch, error) {
	words := make([][]string, len(texts))
	seq := 1
	for i, t := range texts {
		words[i] = wordRE.FindAllString(strings.ToLower(t), -1)
		seq = max(seq, len(words[i]))
	}
	b := retrieve.TokenBatch{Data: make([]float32, len(texts)*seq*h.dim), Seq: seq, Dim: h.dim, Lengths: make([]int, len(texts))}
	for i, ws := range words {
		b.Lengths[i] = max(1, len(ws))
		for j, w := range ws {
			f := fnv.New32a()
			f.Write([]byte(w))
			v := f.Sum32()
			sign := float32(1)
			if v&1 == 1 {
				sign = -1
			}
			b.Token(i, j)[int(v>>1)%h.dim] = sign
		}
	}
	return b, nil
}

// denseCorpus reads the tiny repository and embeds its blocks with the
// hash encoder (mean pooling, as the index does).
func denseCorpus(t *testing.T) *Corpus {
	t.Helper()
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{Include: []string{"*.py"}})
	if err != nil {
		t.Fatal(err)
	}
	c.Encoder = hashEncoder{dim: 32}
	e := retrieve.Embedder{Encoder: c.Encoder, Pooling: retrieve.MeanPooling}
	vecs, err := e.Embed(c.texts())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vecs {
		c.Vectors = append(c.Vectors, v...)
	}
	return c
}
