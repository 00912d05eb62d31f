package engine

import (
	"sync"
	"testing"

	"actor/internal/testsupport"
)

// TestConcurrentSessions runs sessions of one model from several
// goroutines at once and compares with the same work done sequentially.
func TestConcurrentSessions(t *testing.T) {
	r := loadRef(t, "qwen2_tied")
	m := loadTiny(t, r, false)
	run := func(k int) []float32 {
		s, err := m.NewSession()
		if err != nil {
			t.Error(err)
			return nil
		}
		defer s.Close()
		ids := append([]int32{}, r.IDs...)
		ids[3] = int32(k)
		p, err := s.Prefill(ids)
		if err != nil {
			t.Error(err)
			return nil
		}
		for range 5 {
			if p, err = s.Step(p.Top1); err != nil {
				t.Error(err)
				return nil
			}
		}
		return p.Logits
	}
	const n = 8
	var want [n][]float32
	for k := range n {
		want[k] = run(k)
	}
	var got [n][]float32
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[k] = run(k)
		}()
	}
	wg.Wait()
	for k := range n {
		if d := testsupport.MaxAbsDiff(got[k], want[k]); d != 0 {
			t.Errorf("session %d: concurrent logits differ by %.2e", k, d)
		}
	}
}
