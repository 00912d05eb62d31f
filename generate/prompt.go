package generate

import (
	"actor/retrieve"
	"actor/tokenizer"
)

// TokenCounter counts a text's generator tokens as the prompt budget needs
// them: encoded on its own, with the BOS token when the model adds one (as
// the authors' Hugging Face encode does).
type TokenCounter struct {
	Tok *tokenizer.Tokenizer
	// Special counts special-token texts as those tokens (the repository
	// and FIM formats).
	Special bool
}

// CountTokens implements retrieve.TokenCounter.
func (c TokenCounter) CountTokens(text string) (int, error) {
	if c.Special {
		return len(c.Tok.EncodeSpecial(text, true)), nil
	}
	return len(c.Tok.Encode(text, true)), nil
}

// ContextPrompt lays out retrieved blocks before the target as ACToR and
// RawRAG decode it (METHOD.md §3): best block first, under budget.
func ContextPrompt(res []retrieve.Result, t retrieve.Target, tok *tokenizer.Tokenizer, budget retrieve.Budget) (retrieve.Prompt, error) {
	return retrieve.ACToRPrompt(res, t.Path, t.Prompt, TokenCounter{Tok: tok}, budget)
}

// StartPrompt is the prompt ACToR starts decoding from: the blocks r
// returns for the target's signature and docstring, in ContextPrompt's
// layout. Labelling builds its prompts with it, so that the probe learns
// from hidden states of the prompts it later judges.
func StartPrompt(r Retriever, t retrieve.Target, tok *tokenizer.Tokenizer, budget retrieve.Budget) (retrieve.Prompt, error) {
	res, err := r.Retrieve(startQuery(t), t.Exclusion)
	if err != nil {
		return retrieve.Prompt{}, err
	}
	return ContextPrompt(res, t, tok, budget)
}

// startQuery is the query of the first retrieval: the target's signature
// and docstring, as retrieve.ACToRQuery writes it with nothing generated
// (the one query function of generation, actor prompt and actor recall).
func startQuery(t retrieve.Target) string { return retrieve.ACToRQuery(t.Prompt, "") }
