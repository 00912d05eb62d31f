package retrieve

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestDotKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 131; n++ {
		a, b := make([]float32, n), make([]float32, n+3)
		var want float64
		for i := range a {
			a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
			want += float64(a[i]) * float64(b[i])
		}
		for name, got := range map[string]float32{"dot": dot(a, b), "generic": dotGeneric(a, b)} {
			if math.Abs(float64(got)-want) > 1e-5*(1+math.Sqrt(float64(n))) {
				t.Errorf("%s n=%d: %v, want %v", name, n, got, want)
			}
		}
	}
}

// bruteTopK is the reference: float64 cosines, sorted by (score desc,
// index asc).
func bruteTopK(rows [][]float32, q []float32, k int, keep func(int) bool) []Hit {
	norm := func(v []float32) float64 {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		return math.Sqrt(s)
	}
	var hits []Hit
	qn := norm(q)
	for i, row := range rows {
		if keep != nil && !keep(i) {
			continue
		}
		var d float64
		for j := range row {
			d += float64(row[j]) * float64(q[j])
		}
		if rn := norm(row); rn > 0 {
			d /= rn * qn
		} else {
			d = 0
		}
		hits = append(hits, Hit{i, d})
	}
	sort.Slice(hits, func(i, j int) bool { return better(hits[i], hits[j]) })
	return hits[:min(k, len(hits))]
}

func randomRows(r *rand.Rand, n, dim int) ([][]float32, []float32) {
	rows := make([][]float32, n)
	flat := make([]float32, 0, n*dim)
	for i := range rows {
		rows[i] = make([]float32, dim)
		for j := range rows[i] {
			rows[i][j] = float32(r.NormFloat64())
		}
		flat = append(flat, rows[i]...)
	}
	return rows, flat
}

func TestMatrixTopKMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 100, 20000} { // 20000 takes the parallel path
		rows, flat := randomRows(r, n, 37)
		rows[0] = make([]float32, 37) // a zero row scores 0
		copy(flat, rows[0])
		m, err := NewMatrix(flat, 37)
		if err != nil {
			t.Fatal(err)
		}
		q := rows[n-1]
		for _, k := range []int{1, 10, 50, n + 5} {
			keep := func(i int) bool { return i%3 != 1 }
			got, err := m.TopK(q, k, keep)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteTopK(rows, q, k, keep)
			if len(got) != len(want) {
				t.Fatalf("n=%d k=%d: %d hits, want %d", n, k, len(got), len(want))
			}
			// float32 dot products may swap near-ties, so check each rank's
			// score and each hit's own exact score, and that no hit repeats.
			exact := map[int]float64{}
			for _, h := range bruteTopK(rows, q, n, keep) {
				exact[h.Index] = h.Score
			}
			seen := map[int]bool{}
			for i := range got {
				s, ok := exact[got[i].Index]
				if !ok || seen[got[i].Index] || math.Abs(got[i].Score-want[i].Score) > 1e-5 || math.Abs(s-got[i].Score) > 1e-5 {
					t.Fatalf("n=%d k=%d hit %d: %+v, want %+v", n, k, i, got[i], want[i])
				}
				seen[got[i].Index] = true
			}
		}
	}
}

func TestMatrixTiesAreOrderedByIndex(t *testing.T) {
	m, _ := NewMatrix([]float32{1, 0, 0, 1, 2, 0, 1, 0, 0, 3}, 2)
	got, _ := m.TopK([]float32{5, 0}, 3, nil)
	want := []int{0, 2, 3}
	for i, h := range got {
		if h.Index != want[i] || h.Score != 1 {
			t.Fatalf("got %+v, want indices %v with score 1", got, want)
		}
	}
	s, err := m.Scores([]float32{0, 1}, []int{4, 0})
	if err != nil || s[0] != 1 || s[1] != 0 {
		t.Errorf("Scores = %v, %v", s, err)
	}
}

func TestMatrixErrors(t *testing.T) {
	if _, err := NewMatrix(make([]float32, 5), 2); err == nil {
		t.Error("ragged matrix accepted")
	}
	if _, err := NewMatrix([]float32{float32(math.NaN()), 1}, 2); err == nil {
		t.Error("NaN row accepted")
	}
	m, _ := NewMatrix([]float32{1, 0}, 2)
	if _, err := m.TopK([]float32{1}, 1, nil); err == nil {
		t.Error("wrong query dimension accepted")
	}
	if _, err := m.TopK([]float32{float32(math.Inf(1)), 0}, 1, nil); err == nil {
		t.Error("infinite query accepted")
	}
	if _, err := m.Scores([]float32{1, 0}, []int{1}); err == nil {
		t.Error("row out of range accepted")
	}
}

// BenchmarkTopK100kx384 is the search latency recorded in BENCHMARKS.md:
// top 50 of 100,000 unit vectors of MiniLM's dimension, after the query
// embedding.
func BenchmarkTopK100kx384(b *testing.B) {
	benchTopK(b, 100_000, 384)
}

// BenchmarkTopK10kx384 is the same at 10,000 snippets.
func BenchmarkTopK10kx384(b *testing.B) {
	benchTopK(b, 10_000, 384)
}

func benchTopK(b *testing.B, n, dim int) {
	r := rand.New(rand.NewPCG(5, 6))
	flat := make([]float32, n*dim)
	for i := range flat {
		flat[i] = float32(r.NormFloat64())
	}
	m, err := NewMatrix(flat, dim)
	if err != nil {
		b.Fatal(err)
	}
	q := append([]float32(nil), m.Row(n/2)...)
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.TopK(q, 50, nil); err != nil {
			b.Fatal(err)
		}
	}
}
