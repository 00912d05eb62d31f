package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHFDirJSON checks that the tokenizer.json text HFDirJSON returns for
// a folder of vocabulary files (what convert stores in an encoder's GGUF)
// loads into the tokenizer FromHFDir builds: same ids with the
// post-processor, for BERT's vocab.txt, RoBERTa's and GPT-2's vocab.json +
// merges.txt (GPT2Tokenizer adds no <s> … </s>).
func TestHFDirJSON(t *testing.T) {
	vocab := `{"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "a": 4, "b": 5, "ab": 6, "Ġ": 7, "Ġab": 8}`
	merges := "#version: 0.2\na b\nĠ ab\n"
	cases := []struct {
		name  string
		files map[string]string
		want  []int32
	}{
		{"bert", map[string]string{"vocab.txt": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nab\n##c\n"}, []int32{2, 5, 6, 3}},
		{"roberta", map[string]string{"vocab.json": vocab, "merges.txt": merges}, []int32{0, 6, 8, 2}},
		{"gpt2", map[string]string{"vocab.json": vocab, "merges.txt": merges,
			"tokenizer_config.json": `{"tokenizer_class": "GPT2Tokenizer"}`}, []int32{6, 8}},
	}
	text := map[string]string{"bert": "abc", "roberta": "ab ab", "gpt2": "ab ab"}
	for _, c := range cases {
		dir := t.TempDir()
		for name, data := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fromDir, err := FromHFDir(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		js, err := HFDirJSON(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fromJSON, err := ParseJSON(js, c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		a, b := fromDir.EncodeForModel(text[c.name], 16), fromJSON.EncodeForModel(text[c.name], 16)
		if !slices.Equal(a, c.want) || !slices.Equal(b, c.want) {
			t.Errorf("%s: FromHFDir %v, HFDirJSON %v, want %v", c.name, a, b, c.want)
		}
	}
}

// TestReadHFSpecialTokens reads the special tokens of both configuration
// files, tokenizer_config.json winning, as strings or AddedToken objects.
func TestReadHFSpecialTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("special_tokens_map.json", `{"bos_token": "<s>", "eos_token": {"content": "</s>"}, "pad_token": "<p>"}`)
	write("tokenizer_config.json", `{"pad_token": "<pad>", "unk_token": null, "add_bos_token": false}`)
	st, err := ReadHFSpecialTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Text["bos_token"] != "<s>" || st.Text["eos_token"] != "</s>" || st.Text["pad_token"] != "<pad>" || len(st.Text) != 3 {
		t.Errorf("texts %v", st.Text)
	}
	if st.AddBOS == nil || *st.AddBOS || st.AddEOS != nil {
		t.Errorf("add_bos_token %v, add_eos_token %v", st.AddBOS, st.AddEOS)
	}
	write("tokenizer_config.json", `{"eos_token": 5}`)
	if _, err := ReadHFSpecialTokens(dir); err == nil {
		t.Error("a number as eos_token was accepted")
	}
}
