package main

import (
	"strings"
	"testing"
)

func TestModelsList(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ACTOR_HOME", home)
	out, stderr, code := runActor(t, "models", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("list output:\n%s", out)
	}
	for i, name := range []string{"smollm2-135m", "qwen2.5-coder-0.5b (default)", "qwen2.5-coder-1.5b", "all-minilm-l6-v2"} {
		if !strings.HasPrefix(lines[i+1], name) || !strings.Contains(lines[i+1], " missing ") || !strings.Contains(lines[i+1], home+"/models/") {
			t.Errorf("row %d = %q", i+1, lines[i+1])
		}
	}
}

func TestModelsPullBadInput(t *testing.T) {
	t.Setenv("ACTOR_HOME", t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"models", "pull", "smollm3"}, `actor: unknown model "smollm3" (known: smollm2-135m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b, all-minilm-l6-v2)`},
		{[]string{"models", "pull"}, "actor: requires at least 1 arg(s), only received 0"},
		{[]string{"models", "list", "extra"}, `actor: unknown command "extra" for "actor models list"`},
	} {
		out, stderr, code := runActor(t, c.args...)
		if code != 1 || out != "" || strings.TrimSpace(stderr) != c.want {
			t.Errorf("actor %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.args, code, out, stderr, c.want)
		}
	}
}
