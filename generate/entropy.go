package generate

import "actor/engine"

// trigger decides whether a judged token sends ACToR back to the
// retriever: the probe's verdict (probeTrigger, the paper's) or the
// next-token entropy (entropyTrigger). The judge around it skips the same
// tokens and does the same re-retrieval either way, so the two differ only
// in when they fire.
type trigger interface {
	// hidden reports whether fire reads Prediction.Hidden.
	hidden() bool
	// fire decides on the token sampled from pred and records the
	// verdict in ev (ev.Critical).
	fire(pred *engine.Prediction, ev *TokenEvent) bool
}

// entropyTrigger fires when the entropy of the next-token distribution the
// token was sampled from is at least this many nats: the uncertainty
// trigger of FLARE and DRAGIN in its plainest form, and the baseline that
// asks whether a trained probe is worth having. Set at a threshold that
// fires as often as the probe, it compares when to retrieve at an equal
// retrieval budget. It needs no hidden state.
type entropyTrigger float64

func (entropyTrigger) hidden() bool { return false }

func (e entropyTrigger) fire(pred *engine.Prediction, ev *TokenEvent) bool {
	ev.Critical = pred.Entropy >= float64(e)
	return ev.Critical
}
