package testsupport

import "actor/probe"

// ConstProbe returns a five-member ensemble for hidden states of size
// hidden whose members give the same p(critical), sigmoid(gap), to every
// state: W1 = 0, B1 = 0, B2 = (0, gap). A large positive gap calls every
// judged token critical, a large negative one none.
func ConstProbe(hidden int, gap float32) *probe.Probe {
	const units = 4
	p := &probe.Probe{Model: probe.ModelInfo{Arch: "llama", Hidden: hidden}, Units: units, Threshold: probe.DefaultThreshold}
	for range 5 {
		p.Members = append(p.Members, probe.Member{
			W1: make([]float32, units*hidden), B1: make([]float32, units),
			W2: make([]float32, 2*units), B2: []float32{0, gap},
		})
	}
	return p
}
