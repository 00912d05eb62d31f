package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped probe reaches a binary run from any folder: it is written to
// $ACTOR_HOME/shipped-probes byte for byte as committed, rewritten when it
// was changed there, and a user's own probe in $ACTOR_HOME/probes wins.
func TestShippedProbeFromAnyFolder(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join("..", "probes", "qwen2.5-coder-0.5b.probe"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("ACTOR_HOME", home)
	t.Chdir(t.TempDir()) // no probes/ here: the binary's own is installed
	p, err := ShippedProbe("qwen2.5-coder-0.5b")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, committed) || !strings.HasPrefix(p, home) {
		t.Fatalf("shipped probe at %s: %d bytes, want the committed %d under ACTOR_HOME", p, len(got), len(committed))
	}
	os.WriteFile(p, []byte("damaged"), 0o644)
	if p2, err := ShippedProbe("qwen2.5-coder-0.5b"); err != nil || p2 != p {
		t.Fatal(p2, err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, committed) {
		t.Error("a changed copy was not rewritten")
	}
	own := filepath.Join(home, "probes", "qwen2.5-coder-0.5b.probe")
	os.MkdirAll(filepath.Dir(own), 0o755)
	os.WriteFile(own, []byte("mine"), 0o644)
	if p, _ := ShippedProbe("qwen2.5-coder-0.5b"); p != own {
		t.Errorf("the user's probe %s should win over the shipped one, got %s", own, p)
	}
	if _, err := ShippedProbe("no-such-model"); err == nil || !strings.Contains(err.Error(), "none is shipped") {
		t.Errorf("unknown model: %v", err)
	}
}
