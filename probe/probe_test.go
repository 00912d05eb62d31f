package probe

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/probe/critical"
)

// randomProbe builds a probe with uniform random weights.
func randomProbe(d, units, members int, seed uint64) *Probe {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.Float64()*2-1) / float32(math.Sqrt(float64(d)))
		}
		return s
	}
	p := &Probe{Model: ModelInfo{Arch: "llama", Hidden: d, TokenizerHash: "abc123", Name: "tiny"}, Units: units,
		Threshold: DefaultThreshold, Rules: critical.DefaultRules(), Metrics: []byte(`{"members":[{"val_accuracy":0.9}]}`)}
	for range members {
		p.Members = append(p.Members, Member{W1: f(units * d), B1: f(units), W2: f(2 * units), B2: f(2)})
	}
	return p
}

// Hand-worked member: d=2, units=2.
// W1 = [[1, 2], [-1, 0.5]], b1 = [0.5, 0], W2 = [[1, -1], [2, 1]], b2 = [0, 0.25]
// h = [1, -1]: z = [1-2+0.5, -1-0.5+0] = [-0.5, -1.5] → relu [0, 0]
// logits = b2 = [0, 0.25] → p(critical) = σ(0.25) = 0.5621765008857981
// h = [2, 1]: z = [2+2+0.5, -2+0.5] = [4.5, -1.5] → relu [4.5, 0]
// logits = [4.5, 9.25] → p = σ(4.75) = 0.9914225500518355
func TestProbHandWorked(t *testing.T) {
	p := &Probe{Model: ModelInfo{Arch: "x", Hidden: 2}, Units: 2, Threshold: 0.7, Members: []Member{{
		W1: []float32{1, 2, -1, 0.5}, B1: []float32{0.5, 0}, W2: []float32{1, -1, 2, 1}, B2: []float32{0, 0.25}}}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h    []float32
		want float64
	}{{[]float32{1, -1}, 0.5621765008857981}, {[]float32{2, 1}, 0.9914225500518355}} {
		if got := p.Prob(0, c.h); math.Abs(float64(got)-c.want) > 1e-6 {
			t.Errorf("h=%v: p %v, want %v", c.h, got, c.want)
		}
	}
	if p.Critical([]float32{1, -1}) || !p.Critical([]float32{2, 1}) {
		t.Error("threshold 0.7 decision wrong")
	}
}

// reference computes one member in float64 the plain way.
func reference(m Member, h []float32, d, u int) float64 {
	var l [2]float64
	for c := range 2 {
		l[c] = float64(m.B2[c])
	}
	for j := range u {
		z := float64(m.B1[j])
		for k := range d {
			z += float64(m.W1[j*d+k]) * float64(h[k])
		}
		z = math.Max(z, 0)
		for c := range 2 {
			l[c] += float64(m.W2[c*u+j]) * z
		}
	}
	return math.Exp(l[1]) / (math.Exp(l[0]) + math.Exp(l[1]))
}

func TestProbsAgainstReferenceAndBatch(t *testing.T) {
	const d, u, k, n = 37, 19, 5, 23
	p := randomProbe(d, u, k, 7)
	rng := rand.New(rand.NewPCG(3, 4))
	hs := make([]float32, n*d)
	for i := range hs {
		hs[i] = float32(rng.NormFloat64() * 3)
	}
	batch := make([]float32, n*k)
	p.ProbsBatch(hs, batch)
	dec := make([]bool, n)
	p.CriticalBatch(hs, dec)
	one := make([]float32, k)
	for r := range n {
		h := hs[r*d : (r+1)*d]
		p.Probs(h, one)
		all := true
		for i := range k {
			want := reference(p.Members[i], h, d, u)
			if math.Abs(float64(one[i])-want) > 1e-5 {
				t.Errorf("row %d member %d: %v, reference %v", r, i, one[i], want)
			}
			if batch[r*k+i] != one[i] {
				t.Errorf("row %d member %d: batch %v single %v", r, i, batch[r*k+i], one[i])
			}
			all = all && float64(one[i]) > p.Threshold
		}
		if dec[r] != all || p.Critical(h) != all {
			t.Errorf("row %d: decision batch %v single %v, want %v", r, dec[r], p.Critical(h), all)
		}
	}
}

func TestProbNoAllocation(t *testing.T) {
	p := randomProbe(64, 32, 5, 1)
	h := make([]float32, 64)
	out := make([]float32, 5)
	if a := testing.AllocsPerRun(100, func() { p.Probs(h, out); p.Critical(h) }); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	p := randomProbe(16, 8, 5, 2)
	path := filepath.Join(t.TempDir(), "p.probe")
	if err := Save(path, p); err != nil {
		t.Fatal(err)
	}
	q, err := LoadFor(path, p.Model)
	if err != nil {
		t.Fatal(err)
	}
	if q.Model != p.Model || q.Units != p.Units || q.Threshold != p.Threshold || q.Rules != p.Rules || string(q.Metrics) != string(p.Metrics) {
		t.Errorf("header differs: %+v vs %+v", q, p)
	}
	for i := range p.Members {
		for j, pair := range [][2][]float32{{p.Members[i].W1, q.Members[i].W1}, {p.Members[i].B1, q.Members[i].B1},
			{p.Members[i].W2, q.Members[i].W2}, {p.Members[i].B2, q.Members[i].B2}} {
			if !slicesEqual(pair[0], pair[1]) {
				t.Errorf("member %d tensor %d differs", i, j)
			}
		}
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	p := randomProbe(16, 8, 3, 5)
	good := filepath.Join(dir, "good.probe")
	if err := Save(good, p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	flip := append([]byte(nil), data...)
	flip[len(flip)-100] ^= 0x40
	ver := append([]byte(nil), data...)
	ver[8] = 9
	cases := []struct {
		path, want string
		model      *ModelInfo
	}{
		{write("trunc.probe", data[:len(data)-37]), "truncated", nil},
		{write("head.probe", data[:30]), "truncated", nil},
		{write("magic.probe", append([]byte("GGUF"), data[4:]...)), "not a probe file", nil},
		{write("flip.probe", flip), "checksum mismatch", nil},
		{write("ver.probe", ver), "version 9 not supported", nil},
		{write("extra.probe", append(append([]byte(nil), data...), 1, 2)), "unexpected bytes", nil},
		{good, "trained for llama (hidden 16, tokenizer abc123), not qwen2 (hidden 1536, tokenizer abc123)",
			&ModelInfo{Arch: "qwen2", Hidden: 1536, TokenizerHash: "abc123"}},
		{good, "not llama (hidden 16, tokenizer other)", &ModelInfo{Arch: "llama", Hidden: 16, TokenizerHash: "other"}},
		{filepath.Join(dir, "missing.probe"), "no such file", nil},
	}
	for _, c := range cases {
		var err error
		if c.model != nil {
			_, err = LoadFor(c.path, *c.model)
		} else {
			_, err = Load(c.path)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: error %v, want one naming the file and containing %q", c.path, err, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	p := randomProbe(4, 3, 2, 9)
	path := filepath.Join(f.TempDir(), "seed.probe")
	if err := Save(path, p); err != nil {
		f.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	f.Add(data)
	f.Add(data[:40])
	f.Add([]byte(fileMagic))
	f.Add(append([]byte(fileMagic), 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := Decode(b)
		if err != nil {
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("decoded an invalid probe: %v", err)
		}
		h := make([]float32, q.Model.Hidden)
		q.Critical(h)
		// A decoded probe re-encodes to the same bytes.
		out := filepath.Join(t.TempDir(), "re.probe")
		if err := Save(out, q); err != nil {
			t.Fatal(err)
		}
		if re, _ := os.ReadFile(out); !bytes.Equal(re, b) {
			t.Fatal("re-encoding differs")
		}
	})
}

func BenchmarkCriticalD576(b *testing.B)  { benchCritical(b, 576) }
func BenchmarkCriticalD1536(b *testing.B) { benchCritical(b, 1536) }

// benchCritical times the full 5-member p(critical) (no early exit).
func benchCritical(b *testing.B, d int) {
	p := randomProbe(d, 512, 5, 1)
	h := make([]float32, d)
	out := make([]float32, 5)
	for b.Loop() {
		p.Probs(h, out)
	}
}
