package ggml

import (
	"strconv"

	"github.com/ollama/ollama/ml"
)

// Weight is one tensor a graph reads: its name in the GGUF file, the
// shape its hyper-parameters imply (ggml order: the fastest-varying
// dimension first) and where the graph keeps it. One list per
// architecture serves both the caller's check of a file (names, shapes)
// and the binding of the loaded tensors, so a weight is named once.
type Weight struct {
	Name  string
	Shape []uint64
	// Aliased: the file may leave it out and the backend gives another
	// tensor in its place (the LM head of tied embeddings); a check skips
	// it when the file does.
	Aliased bool
	to      *ml.Tensor
}

// DecoderWeights lists the tensors a decoder with p reads, in the order
// of the file's layers.
func DecoderWeights(p Params) []Weight { return (&Model{p: p}).weights() }

// weights lists the decoder's tensors with the fields of m that hold
// them (it sizes m.layers).
func (m *Model) weights() []Weight {
	p := m.p
	h, v, ff := uint64(p.Embed), uint64(p.Vocab), uint64(p.FFN)
	q, kv := uint64(p.Heads*p.HeadDim), uint64(p.KVHeads*p.HeadDim)
	ws := []Weight{
		{Name: "token_embd.weight", Shape: []uint64{h, v}, to: &m.tokEmb},
		{Name: "output_norm.weight", Shape: []uint64{h}, to: &m.outNorm},
		{Name: "output.weight", Shape: []uint64{h, v}, Aliased: true, to: &m.output},
	}
	m.layers = make([]layer, p.Layers)
	for i := range m.layers {
		l, pre := &m.layers[i], "blk."+strconv.Itoa(i)+"."
		ws = append(ws,
			Weight{Name: pre + "attn_norm.weight", Shape: []uint64{h}, to: &l.attnNorm},
			Weight{Name: pre + "attn_q.weight", Shape: []uint64{h, q}, to: &l.wq},
			Weight{Name: pre + "attn_k.weight", Shape: []uint64{h, kv}, to: &l.wk},
			Weight{Name: pre + "attn_v.weight", Shape: []uint64{h, kv}, to: &l.wv},
			Weight{Name: pre + "attn_output.weight", Shape: []uint64{q, h}, to: &l.wo},
			Weight{Name: pre + "ffn_norm.weight", Shape: []uint64{h}, to: &l.ffnNorm},
			Weight{Name: pre + "ffn_gate.weight", Shape: []uint64{h, ff}, to: &l.wg},
			Weight{Name: pre + "ffn_up.weight", Shape: []uint64{h, ff}, to: &l.wu},
			Weight{Name: pre + "ffn_down.weight", Shape: []uint64{ff, h}, to: &l.wd})
		if p.QKVBias {
			ws = append(ws,
				Weight{Name: pre + "attn_q.bias", Shape: []uint64{q}, to: &l.bq},
				Weight{Name: pre + "attn_k.bias", Shape: []uint64{kv}, to: &l.bk},
				Weight{Name: pre + "attn_v.bias", Shape: []uint64{kv}, to: &l.bv})
		}
	}
	return ws
}

// bindAll points each weight's field at the backend's tensor of that
// name; the first missing one is the error.
func bindAll(b ml.Backend, ws []Weight) error {
	for _, w := range ws {
		if *w.to = b.Get(w.Name); *w.to == nil {
			return &missingError{w.Name}
		}
	}
	return nil
}

// missingError is a weight the loaded file lacks.
type missingError struct{ name string }

func (e *missingError) Error() string { return "tensor " + e.name + " is missing" }

// EncoderWeights lists the tensors an encoder with p reads.
func EncoderWeights(p EncoderParams) []Weight { return (&Encoder{p: p}).weights() }

// weights lists the encoder's tensors with the fields of e that hold
// them (it sizes e.layers).
func (e *Encoder) weights() []Weight {
	p := e.p
	h, ff := uint64(p.Embed), uint64(p.FFN)
	ws := []Weight{
		{Name: "token_embd.weight", Shape: []uint64{h, uint64(p.Vocab)}, to: &e.tokEmb},
		{Name: "position_embd.weight", Shape: []uint64{h, uint64(p.Positions)}, to: &e.posEmb},
		{Name: "token_types.weight", Shape: []uint64{h, uint64(p.Types)}, to: &e.typ0},
		{Name: "token_embd_norm.weight", Shape: []uint64{h}, to: &e.normW},
		{Name: "token_embd_norm.bias", Shape: []uint64{h}, to: &e.normB},
	}
	e.layers = make([]encLayer, p.Layers)
	for i := range e.layers {
		l, pre := &e.layers[i], "blk."+strconv.Itoa(i)+"."
		lin := func(name string, d *dense, in, out uint64) {
			ws = append(ws, Weight{Name: pre + name + ".weight", Shape: []uint64{in, out}, to: &d.w},
				Weight{Name: pre + name + ".bias", Shape: []uint64{out}, to: &d.b})
		}
		norm := func(name string, w, b *ml.Tensor) {
			ws = append(ws, Weight{Name: pre + name + ".weight", Shape: []uint64{h}, to: w},
				Weight{Name: pre + name + ".bias", Shape: []uint64{h}, to: b})
		}
		lin("attn_q", &l.q, h, h)
		lin("attn_k", &l.k, h, h)
		lin("attn_v", &l.v, h, h)
		lin("attn_output", &l.o, h, h)
		lin("ffn_up", &l.up, h, ff)
		lin("ffn_down", &l.down, ff, h)
		norm("attn_output_norm", &l.attnNormW, &l.attnNormB)
		norm("layer_output_norm", &l.outNormW, &l.outNormB)
	}
	return ws
}
