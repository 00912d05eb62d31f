package pipeline

import (
	"os"
	"path/filepath"

	"actor/convert"
	"actor/encoder"
	"actor/models"
	"actor/retrieve"
)

// DefaultEncoder is the dense encoder obtainable here (METHOD.md §2).
const DefaultEncoder = "all-minilm-l6-v2"

// OpenEncoder resolves an encoder argument (a known model name such as
// all-minilm-l6-v2, a GGUF file, or a Hugging Face checkpoint folder) and
// loads it. A folder is converted to GGUF once, into $ACTOR_HOME/encoders
// (conversion notes go to stderr), and the conversion is reused while the
// folder is unchanged.
func OpenEncoder(name string, opts encoder.Options) (retrieve.Encoder, error) {
	path, err := models.Resolve(name)
	if err != nil {
		return nil, err
	}
	home, err := models.Home()
	if err != nil {
		return nil, err
	}
	file, err := convert.Prepare(path, filepath.Join(home, "encoders"), os.Stderr)
	if err != nil {
		return nil, err
	}
	enc, err := encoder.Open(file, opts)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return enc, nil
}

// CandidateEmbedder is the embedder of stored candidates: mean pooling, as
// the paper keeps for candidates.
func CandidateEmbedder(enc retrieve.Encoder) retrieve.Embedder {
	return retrieve.Embedder{Encoder: enc, Pooling: retrieve.MeanPooling}
}
