package gguf

// Metadata keys that this project's converter writes in encoder files,
// besides llama.cpp's bert.* keys; the encoder reads them.
const (
	// KeyTokenizerJSON holds the tokenizer.json text (gguf-py's name).
	KeyTokenizerJSON = "tokenizer.huggingface.json"
	// KeyEncoderFamily is "bert" or "roberta": the source architecture,
	// which decides the input layout (RoBERTa/UniXcoder may add
	// <encoder-only>).
	KeyEncoderFamily = "actor.encoder.family"
	// KeyEncoderMaxTokens is the longest input, special tokens included:
	// sentence-transformers' max_seq_length when the folder has
	// sentence_bert_config.json, otherwise the position table's size.
	KeyEncoderMaxTokens = "actor.encoder.max_tokens"
)
