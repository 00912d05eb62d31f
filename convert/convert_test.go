package convert

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"actor/gguf"
	"actor/internal/testsupport"
)

// TestEncodingsMatchGGUFPy: F16 and Q8_0 bytes equal those of gguf-py
// (bit-exact with ggml's reference quantiser) on awkward values: ties,
// overflow, subnormals, a zero block (convert/testdata/quant.json).
func TestEncodingsMatchGGUFPy(t *testing.T) {
	raw, err := os.ReadFile("testdata/quant.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Values []uint32
		F16    string
		Q8_0   string `json:"q8_0"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, len(ref.Values))
	for i, b := range ref.Values {
		x[i] = math.Float32frombits(b)
	}
	for _, c := range []struct {
		typ  gguf.Type
		want string
	}{{gguf.TypeF16, ref.F16}, {gguf.TypeQ8_0, ref.Q8_0}} {
		got, err := encodeTensor(x, 32, c.typ)
		if err != nil {
			t.Fatal(err)
		}
		if h := hex.EncodeToString(got); h != c.want {
			for i := 0; i < len(h); i += 2 {
				if h[i:i+2] != c.want[i:i+2] {
					t.Fatalf("%s: byte %d is %s, gguf-py %s", c.typ, i/2, h[i:i+2], c.want[i:i+2])
				}
			}
			t.Fatalf("%s: %d bytes, gguf-py %d", c.typ, len(h)/2, len(c.want)/2)
		}
	}
}

// TestFloat16Hand checks float16Bits on values worked by hand.
func TestFloat16Hand(t *testing.T) {
	cases := []struct {
		f    float32
		want uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {0, 0}, {float32(math.Copysign(0, -1)), 0x8000},
		{65504, 0x7bff}, {65520, 0x7c00}, // halfway to 65536: even is infinity
		{1 + 1.0/2048, 0x3c00}, // tie between 1 and 1+2^-10: even
		{1 + 3.0/2048, 0x3c02}, // tie between 1+2^-10 and 1+2^-9: even
		{1.0 / (1 << 24), 0x0001}, {1.0 / (1 << 25), 0}, {3.0 / (1 << 25), 0x0002},
		{1.0 / (1 << 14), 0x0400}, // smallest normal
		{float32(math.Inf(-1)), 0xfc00}, {float32(math.NaN()), 0x7e00},
	}
	for _, c := range cases {
		if got := float16Bits(c.f); got != c.want {
			t.Errorf("float16Bits(%g) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
}

// TestPermuteRows: one head of 4 rows: HF rows (half, i) = 0:(0,0) 1:(0,1)
// 2:(1,0) 3:(1,1) go to 2i+half: 0, 2, 1, 3.
func TestPermuteRows(t *testing.T) {
	w := []float32{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5} // 4 rows of 2 columns
	got := permuteRows(w, 1, 4)
	want := []float32{0, 0.5, 2, 2.5, 1, 1.5, 3, 3.5}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	two := permuteRows([]float32{0, 1, 2, 3, 4, 5, 6, 7}, 2, 4) // two heads of one column
	if want := []float32{0, 2, 1, 3, 4, 6, 5, 7}; !slices.Equal(two, want) {
		t.Errorf("two heads: got %v, want %v", two, want)
	}
}

func TestRopeConfig(t *testing.T) {
	cases := []struct {
		json          string
		theta, factor float64
		err           string
	}{
		{`{}`, 10000, 1, ""},
		{`{"rope_theta": 100000, "rope_scaling": {"type": "linear", "factor": 4.0}}`, 100000, 4, ""},
		{`{"rope_theta": 5e5, "rope_scaling": null}`, 5e5, 1, ""},
		{`{"rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 1e6}}`, 1e6, 2, ""},
		{`{"rope_parameters": {"rope_type": "default", "rope_theta": 1e6}}`, 1e6, 1, ""},
		{`{"rope_scaling": {"rope_type": "llama3", "factor": 8}}`, 0, 0, "not supported"},
		{`{"rope_scaling": {"type": "linear"}}`, 0, 0, "positive factor"},
		{`{"rope_scaling": "linear"}`, 0, 0, "not an object"},
		{`{"rope_theta": "x"}`, 0, 0, "not a number"},
	}
	for _, c := range cases {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.json), &m); err != nil {
			t.Fatal(err)
		}
		r := &cfg{m: m, path: "config.json"}
		theta, factor := ropeConfig(r)
		switch {
		case c.err != "" && (r.err == nil || !strings.Contains(r.err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.json, r.err, c.err)
		case c.err == "" && r.err != nil:
			t.Errorf("%s: %v", c.json, r.err)
		case c.err == "" && (theta != c.theta || factor != c.factor):
			t.Errorf("%s: theta %g factor %g, want %g %g", c.json, theta, factor, c.theta, c.factor)
		}
	}
}

// TestPreNames recognises the pre-tokenizers of real tokenizer.json files
// (as they spell them) and refuses others.
func TestPreNames(t *testing.T) {
	bl := func(regex bool) string {
		return `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":` + map[bool]string{true: "true", false: "false"}[regex] + `}`
	}
	split := func(re string) string {
		b, _ := json.Marshal(re)
		return `{"type":"Split","pattern":{"Regex":` + string(b) + `},"behavior":"Isolated","invert":false}`
	}
	seq := func(s ...string) string { return `{"type":"Sequence","pretokenizers":[` + strings.Join(s, ",") + `]}` }
	digits := `{"type":"Digits","individual_digits":true}`
	cases := map[string]string{
		bl(true):              "gpt-2",
		seq(digits, bl(true)): "smollm",
		seq(split(`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`), bl(false)):      "qwen2",
		seq(split(`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`), bl(false)): "llama-bpe",
		seq(split("[\r\n]"), split(`\s?\p{L}+`), split(`\s?\p{P}+`), split("[一-龥ࠀ-一가-퟿]+"), digits, bl(false)):                                       "deepseek-coder",
		seq(digits, bl(false)):                   "",
		`{"type":"Metaspace","replacement":"▁"}`: "",
	}
	for js, want := range cases {
		sig, err := preSignature(json.RawMessage(js))
		if err != nil {
			t.Fatal(err)
		}
		if got := preTokenizers[sig]; got != want {
			t.Errorf("%s: signature %q names %q, want %q", js, sig, got, want)
		}
	}
}

// copyDir copies a testdata checkpoint so a test can break it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestBadInput: each broken folder gives one clear error naming the
// problem, and no output file is left behind.
func TestBadInput(t *testing.T) {
	edit := func(file, old, new string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			s := strings.Replace(string(b), old, new, 1)
			if s == string(b) {
				t.Fatalf("%s has no %q", file, old)
			}
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	remove := func(names ...string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			for _, n := range names {
				if err := os.Remove(filepath.Join(dir, n)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	cases := []struct {
		src    string
		break_ func(t *testing.T, dir string)
		want   string
	}{
		{testsupport.Path(testsupport.TinyBERT), edit("config.json", `"BertModel"`, `"GPT2LMHeadModel"`), `unsupported architecture "GPT2LMHeadModel"`},
		{testsupport.Path(testsupport.TinyBERT), remove("config.json"), "no config.json"},
		{testsupport.Path(testsupport.TinyBERT), remove("model.safetensors"), "no *.safetensors"},
		{testsupport.Path(testsupport.TinyBERT), remove("vocab.txt"), "no tokenizer.json, vocab.json + merges.txt or vocab.txt"},
		{testsupport.Path(testsupport.TinyBERT), edit("config.json", `"hidden_act": "gelu"`, `"hidden_act": "relu"`), `hidden_act "relu"`},
		{testsupport.Path(testsupport.TinyBERT), edit("config.json", `"hidden_size": 32`, `"hidden_size": 64`), "config.json implies"},
		{testsupport.Path(testsupport.TinyBERT), edit("config.json", `"num_hidden_layers": 2`, `"num_hidden_layers": 1`), "tensors this converter does not know"},
		{testsupport.Path(testsupport.TinyBERT), edit("config.json", `"num_hidden_layers": 2`, `"num_hidden_layers": "two"`), "not a number"},
		{testsupport.Path(testsupport.TinyBERT), edit("config.json", `{`, `[`), "config.json"},
		{"testdata/tiny_llama", remove("model-00002-of-00003.safetensors"), "model-00002-of-00003.safetensors"},
		{"testdata/tiny_llama", edit("config.json", `"rope_type": "linear"`, `"rope_type": "yarn"`), `RoPE scaling "yarn"`},
		{"testdata/tiny_llama", remove("tokenizer.json"), "no tokenizer.json"},
		{"testdata/tiny_llama", edit("tokenizer.json", `"individual_digits": true`, `"individual_digits": false`), "unknown pre_tokenizer"},
		{"testdata/tiny_qwen2", edit("config.json", `"tie_word_embeddings": true`, `"tie_word_embeddings": false`), "lm_head.weight is missing"},
		{"testdata/tiny_qwen2", edit("tokenizer_config.json", `"<|endoftext|>"`, `"<|nope|>"`), "is not a token"},
	}
	for _, c := range cases {
		dir := copyDir(t, c.src)
		c.break_(t, dir)
		out := filepath.Join(t.TempDir(), "out.gguf")
		_, err := Convert(dir, out, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s broken: error %v, want one containing %q", c.src, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("multi-line error: %q", err)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s broken: output file left behind", c.src)
		}
	}
	if _, err := ParseType("q4_k"); err == nil {
		t.Error("ParseType accepted q4_k")
	}
}

// FuzzConfig converts the tiny BERT with a fuzzed config.json: any input
// gives a file or an error, never a panic.
func FuzzConfig(f *testing.F) {
	for _, p := range []string{testsupport.Path(testsupport.TinyBERT + "/config.json"), testsupport.Path(testsupport.TinyRoBERTa + "/config.json"),
		"testdata/tiny_qwen2/config.json", "testdata/tiny_llama/config.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"architectures":["BertModel"],"hidden_size":0}`))
	f.Fuzz(func(t *testing.T, cfg []byte) {
		dir := t.TempDir()
		for _, n := range []string{"model.safetensors", "vocab.txt"} {
			b, err := os.ReadFile(filepath.Join(testsupport.Path(testsupport.TinyBERT), n))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, n), b, 0o644)
		}
		os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644)
		Convert(dir, filepath.Join(dir, "out.gguf"), Options{})
	})
}

// FuzzTokenizerFiles converts the tiny Qwen2 with fuzzed tokenizer.json and
// tokenizer_config.json texts.
func FuzzTokenizerFiles(f *testing.F) {
	tj, err := os.ReadFile("testdata/tiny_qwen2/tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	tc, err := os.ReadFile("testdata/tiny_qwen2/tokenizer_config.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tj, tc)
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":5000},"merges":[["a","b c"]]},"pre_tokenizer":{"type":"ByteLevel"}}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, tokJSON, tokCfg []byte) {
		dir := t.TempDir()
		for _, n := range []string{"config.json", "model.safetensors"} {
			b, err := os.ReadFile(filepath.Join("testdata/tiny_qwen2", n))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, n), b, 0o644)
		}
		os.WriteFile(filepath.Join(dir, "tokenizer.json"), tokJSON, 0o644)
		os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), tokCfg, 0o644)
		Convert(dir, filepath.Join(dir, "out.gguf"), Options{})
	})
}
