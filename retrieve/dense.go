package retrieve

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Matrix is the dense index: one contiguous row-major float32 matrix of
// unit-length candidate vectors, searched exhaustively (exact top-k cosine).
// On AVX2 machines large matrices also keep a half-precision copy that is
// scanned first (half the memory traffic); only rows whose approximate
// score could reach the top k are rescored from the float32 rows, so the
// result is the same as a full float32 scan.
type Matrix struct {
	data []float32
	n    int
	dim  int
	half []uint16 // half-precision copy, nil when not used
	eps  float64  // bound on |half-precision score - float32 score|
}

// NewMatrix takes ownership of data (n rows of dim floats) and normalises
// every row to unit length in place (zero rows stay zero). Non-finite values
// are rejected.
func NewMatrix(data []float32, dim int) (*Matrix, error) {
	if dim <= 0 || len(data)%dim != 0 {
		return nil, fmt.Errorf("dense index: %d floats is not a whole number of %d-dim rows", len(data), dim)
	}
	m := &Matrix{data: data, n: len(data) / dim, dim: dim}
	for i := 0; i < m.n; i++ {
		row := m.Row(i)
		var ss float64
		for _, x := range row {
			ss += float64(x) * float64(x)
		}
		if math.IsNaN(ss) || math.IsInf(ss, 0) {
			return nil, fmt.Errorf("dense index: row %d is not finite", i)
		}
		if ss == 0 {
			continue
		}
		inv := float32(1 / math.Sqrt(ss))
		for j := range row {
			row[j] *= inv
		}
	}
	m.buildHalf()
	return m, nil
}

// Len returns the number of rows.
func (m *Matrix) Len() int { return m.n }

// Dim returns the row length.
func (m *Matrix) Dim() int { return m.dim }

// Row returns row i (shared, not a copy).
func (m *Matrix) Row(i int) []float32 { return m.data[i*m.dim : (i+1)*m.dim] }

// minParallelRows is the matrix size below which one goroutine searches
// alone (starting workers costs more than it saves).
const minParallelRows = 8192

// parallelRows splits rows [0, n) into one contiguous chunk per worker
// (a single chunk for small n) and runs fn on each concurrently; it
// returns the number of chunks.
func parallelRows(n int, fn func(chunk, lo, hi int)) int {
	workers := runtime.GOMAXPROCS(0)
	if n < minParallelRows || workers < 2 {
		fn(0, 0, n)
		return 1
	}
	var wg sync.WaitGroup
	size := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*size, min(n, (w+1)*size)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	wg.Wait()
	return workers
}

// TopK returns the k rows most similar to q (cosine: q is normalised here),
// best first, ties to the lower row, among the rows keep accepts (all when
// keep is nil). keep is called only for rows that could enter the top k,
// possibly from several goroutines at once.
func (m *Matrix) TopK(q []float32, k int, keep func(int) bool) ([]Hit, error) {
	if len(q) != m.dim {
		return nil, fmt.Errorf("dense search: query of dimension %d, index of %d", len(q), m.dim)
	}
	qn, err := unit(q)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	return m.search(qn, k, keep), nil
}

// topKExact scans the float32 rows.
func (m *Matrix) topKExact(q []float32, k int, keep func(int) bool) []Hit {
	parts := make([]*topK, runtime.GOMAXPROCS(0))
	n := parallelRows(m.n, func(chunk, lo, hi int) {
		t := newTopK(k)
		for i := lo; i < hi; i++ {
			s := float64(dot(m.data[i*m.dim:(i+1)*m.dim], q))
			if t.wants(i, s) && (keep == nil || keep(i)) {
				t.push(Hit{i, s})
			}
		}
		parts[chunk] = t
	})
	all := newTopK(k)
	for _, p := range parts[:n] {
		for _, h := range p.h {
			all.push(h)
		}
	}
	return all.sorted()
}

// Scores returns the cosine of q with each of the given rows, for
// re-ranking a short list.
func (m *Matrix) Scores(q []float32, rows []int) ([]float64, error) {
	if len(q) != m.dim {
		return nil, fmt.Errorf("dense search: query of dimension %d, index of %d", len(q), m.dim)
	}
	qn, err := unit(q)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(rows))
	for i, r := range rows {
		if r < 0 || r >= m.n {
			return nil, fmt.Errorf("dense search: row %d of %d", r, m.n)
		}
		out[i] = float64(dot(m.Row(r), qn))
	}
	return out, nil
}

// unit returns q / |q|, refusing non-finite queries.
func unit(q []float32) ([]float32, error) {
	acc := make([]float64, len(q))
	for i, x := range q {
		acc[i] = float64(x)
	}
	out := normalized(acc)
	for _, x := range out {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("dense search: query vector is not finite")
		}
	}
	return out, nil
}
