package tokenizer

import (
	"encoding/json"
	"fmt"
)

// hfPreTokenizerJSON is a tokenizer.json pre-tokenizer.
type hfPreTokenizerJSON struct {
	Type          string            `json:"type"`
	PreTokenizers []json.RawMessage `json:"pretokenizers"` // Sequence
	// Split, Punctuation
	Pattern  *hfPattern `json:"pattern"`
	Behavior string     `json:"behavior"`
	Invert   bool       `json:"invert"`
	// ByteLevel (and Metaspace's add_prefix_space)
	hfMetaspaceJSON
	UseRegex         *bool   `json:"use_regex"`
	IndividualDigits bool    `json:"individual_digits"` // Digits
	Split            *bool   `json:"split"`             // Metaspace
	Delimiter        *string `json:"delimiter"`         // CharDelimiterSplit
}

// hfMetaspaceJSON is what Metaspace, a pre-tokenizer and a decoder, reads;
// ByteLevel reads add_prefix_space too.
type hfMetaspaceJSON struct {
	Replacement    *string `json:"replacement"`
	PrependScheme  *string `json:"prepend_scheme"`
	AddPrefixSpace *bool   `json:"add_prefix_space"`
}

// buildPreTokenizer builds the pre-tokenizer steps.
func (b *hfBuilder) buildPreTokenizer(raw json.RawMessage) ([]preStep, error) {
	steps, err := b.preSteps(raw)
	if err != nil {
		return nil, err
	}
	// consecutive hand-written matchers share one pass
	var out []preStep
	for _, s := range steps {
		if m, ok := s.(matcherStep); ok && len(out) > 0 {
			if prev, ok := out[len(out)-1].(matcherStep); ok {
				out[len(out)-1] = matcherStep{&pretokenizer{steps: append(prev.p.steps[:len(prev.p.steps):len(prev.p.steps)], m.p.steps...)}}
				continue
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// finishByteLevel leaves the byte-level mapping of a final ByteLevel step
// to a BPE model, which then caches words by their raw bytes, and drops the
// step when nothing else is left of it; other ByteLevel steps map their
// pieces themselves.
func finishByteLevel(steps []preStep, m wordModel) []preStep {
	for i, s := range steps {
		if bl, ok := s.(byteLevelStep); ok {
			bl.mapBytes = true
			steps[i] = bl
		}
	}
	h, ok := m.(*hfBPE)
	if !ok || len(steps) == 0 {
		return steps
	}
	bl, ok := steps[len(steps)-1].(byteLevelStep)
	if !ok {
		return steps
	}
	h.byteLevel = true
	bl.mapBytes = false
	if !bl.prefixSpace && bl.regex == nil {
		return steps[:len(steps)-1]
	}
	steps[len(steps)-1] = bl
	return steps
}

// matchers is a step running the hand-written matchers ms.
func matchers(ms ...matcher) matcherStep { return matcherStep{&pretokenizer{steps: ms}} }

// preSteps builds the steps of one pre-tokenizer.
func (b *hfBuilder) preSteps(raw json.RawMessage) ([]preStep, error) {
	c, ok, err := parseComponent[hfPreTokenizerJSON](raw)
	if err != nil || !ok {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var out []preStep
		for _, r := range c.PreTokenizers {
			s, err := b.preSteps(r)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	case "ByteLevel":
		st := byteLevelStep{prefixSpace: deref(c.AddPrefixSpace, true)}
		if deref(c.UseRegex, true) {
			st.regex = &pretokenizer{steps: []matcher{matchGPT2}}
		}
		if !st.prefixSpace && st.regex != nil {
			// the same split as a plain matcher, bytes mapped by the model
			return []preStep{matchers(matchGPT2), byteLevelStep{}}, nil
		}
		return []preStep{st}, nil
	case "Split":
		if c.Pattern == nil {
			return nil, fmt.Errorf("Split without pattern")
		}
		beh, ok := behaviors[c.Behavior]
		if !ok {
			return nil, fmt.Errorf("Split: unknown behavior %q", c.Behavior)
		}
		if c.Pattern.Regex != nil && beh == behIsolated && !c.Invert {
			if k, ok := knownSplits[*c.Pattern.Regex]; ok {
				return []preStep{matchers(k.match)}, nil
			}
		}
		f, err := newFinder(*c.Pattern)
		if err != nil {
			return nil, fmt.Errorf("Split: %v", err)
		}
		return []preStep{patternStep{f, beh, c.Invert}}, nil
	case "Digits":
		if c.IndividualDigits {
			return []preStep{matchers(matchEach(isNumber))}, nil
		}
		return []preStep{matchers(matchRuns(isNumber, false))}, nil
	case "Metaspace":
		repl, scheme, err := c.metaspace()
		if err != nil {
			return nil, err
		}
		return []preStep{metaspaceStep{string(repl), scheme, deref(c.Split, true)}}, nil
	case "BertPreTokenizer":
		return []preStep{patternStep{classFinder(isSpace), behRemoved, false}, matchers(matchEach(isBertPunct))}, nil
	case "Whitespace":
		return []preStep{patternStep{classFinder(isSpace), behRemoved, false}, matchers(matchWordRuns)}, nil
	case "WhitespaceSplit":
		return []preStep{patternStep{classFinder(isSpace), behRemoved, false}}, nil
	case "Punctuation":
		beh := behIsolated
		if c.Behavior != "" {
			if beh, ok = behaviors[c.Behavior]; !ok {
				return nil, fmt.Errorf("Punctuation: unknown behavior %q", c.Behavior)
			}
		}
		return []preStep{patternStep{classFinder(isBertPunct), beh, false}}, nil
	case "CharDelimiterSplit":
		d, err := oneRune(c.Delimiter, 0, "delimiter")
		if err != nil || c.Delimiter == nil {
			return nil, fmt.Errorf("CharDelimiterSplit needs a one-character delimiter")
		}
		return []preStep{patternStep{classFinder(func(r rune) bool { return r == d }), behRemoved, false}}, nil
	}
	return nil, fmt.Errorf("unsupported pre_tokenizer type %q", c.Type)
}

// metaspace reads Metaspace's replacement character (default '▁') and its
// prepend_scheme (default "always"), or the older add_prefix_space.
func (c hfMetaspaceJSON) metaspace() (rune, int, error) {
	repl, err := oneRune(c.Replacement, '▁', "replacement")
	if err != nil {
		return 0, 0, err
	}
	if c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
		return repl, prependNever, nil
	}
	switch deref(c.PrependScheme, "always") {
	case "always":
		return repl, prependAlways, nil
	case "first":
		return repl, prependFirst, nil
	case "never":
		return repl, prependNever, nil
	}
	return 0, 0, fmt.Errorf("Metaspace: unknown prepend_scheme %q", *c.PrependScheme)
}
