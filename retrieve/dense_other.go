//go:build !amd64

package retrieve

// buildHalf does nothing here: without F16C a half-precision pre-scan
// costs more than it saves.
func (m *Matrix) buildHalf() {}

// search scans the float32 rows.
func (m *Matrix) search(q []float32, k int, keep func(int) bool) []Hit {
	return m.topKExact(q, k, keep)
}
