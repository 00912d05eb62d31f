package candidate

import (
	"os/exec"
	"strings"
	"testing"
)

const prompt = "def reverse(s: str) -> str:\n    \"\"\"\n    Reverse s.\n    \"\"\"\n"

func TestExtract(t *testing.T) {
	cases := []struct {
		name, generated, prompt, want string
		mode                          Mode
	}{
		{
			name:      "body after indented prompt, stops at column 0",
			generated: "return s[::-1]\n\n\ndef other():\n    pass\n",
			prompt:    prompt + "    ",
			want:      prompt + "    return s[::-1]",
			mode:      ModeBody,
		},
		{
			name:      "body with nested block, re-indented from 2 spaces",
			generated: "  if not s:\n    return s\n  # done\n  return s[::-1]\nprint(reverse('a'))\n",
			prompt:    prompt,
			want:      prompt + "    if not s:\n      return s\n    # done\n    return s[::-1]",
			mode:      ModeBody,
		},
		{
			name:      "docstring line at column 0 inside the body does not stop it",
			generated: "    x = '''\nabc\n'''\n    return x\nfoo()\n",
			prompt:    prompt,
			want:      prompt + "    x = '''\nabc\n'''\n    return x",
			mode:      ModeBody,
		},
		{
			name:      "whole function in a Markdown block among helpers",
			generated: "Here:\n```python\nimport os\ndef helper():\n    pass\n\ndef reverse(s):\n    return s[::-1]\n\nprint(1)\n```\nDone.",
			prompt:    prompt,
			want:      "def reverse(s):\n    return s[::-1]",
			mode:      ModeFunction,
		},
		{
			name:      "method written inside a class is dedented",
			generated: "class A:\n    def reverse(self, s):\n        return s[::-1]\n",
			prompt:    prompt,
			want:      "def reverse(self, s):\n    return s[::-1]",
			mode:      ModeFunction,
		},
		{
			name:      "tab-indented CoderEval prompt",
			generated: "return n\n\t\ndef g(): pass",
			prompt:    "def f(n):\n\t\"\"\"\n\tDoc.\n\t\"\"\"\n\t",
			want:      "def f(n):\n    \"\"\"\n    Doc.\n    \"\"\"\n    return n",
			mode:      ModeBody,
		},
		{
			name:      "empty generation becomes pass",
			generated: "\n\n",
			prompt:    prompt,
			want:      prompt + "    pass",
			mode:      ModeBody,
		},
	}
	for _, c := range cases {
		got, mode := Extract(c.generated, "reverse", c.prompt)
		if c.name == "tab-indented CoderEval prompt" {
			got, mode = Extract(c.generated, "f", c.prompt)
		}
		if got != c.want || mode != c.mode {
			t.Errorf("%s:\ngot  (%s) %q\nwant (%s) %q", c.name, mode, got, c.mode, c.want)
		}
	}
}

func TestPlace(t *testing.T) {
	file := "import os\n\n\nclass A:\n\t@staticmethod\n\tdef f(x):\n\t\t\"\"\"Doc.\"\"\"\n\t\treturn x\n\n\tdef g(self):\n\t\treturn 2\n\n\ndef f(x):\n    return -x\n"
	fn := "def f(x):\n    if x:\n        return x + 1\n    return 0"
	out, span, err := Place(file, Target{Name: "f", Line: 6}, fn)
	if err != nil {
		t.Fatal(err)
	}
	want := "import os\n\n\nclass A:\n\t@staticmethod\n\tdef f(x):\n\t    if x:\n\t        return x + 1\n\t    return 0\n\n\tdef g(self):\n\t\treturn 2\n\n\ndef f(x):\n    return -x\n"
	if out != want || span != [2]int{6, 8} {
		t.Fatalf("Place method: span %v\n%q\nwant\n%q", span, out, want)
	}
	compiles(t, out)

	out, span, err = Place(file, Target{Name: "f", Gold: "def f(x):\n    return -x"}, fn)
	if err != nil || span != [2]int{14, 15} || !strings.HasSuffix(out, "\n\ndef f(x):\n    if x:\n        return x + 1\n    return 0\n") {
		t.Fatalf("Place by gold: span %v err %v\n%q", span, err, out)
	}
	compiles(t, out)
	if _, _, err := Place(file, Target{Name: "missing"}, fn); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Fatalf("missing function: err = %v", err)
	}
}

// compiles fails the test when python3 cannot compile src.
func compiles(t *testing.T, src string) {
	t.Helper()
	cmd := exec.Command("python3", "-c", "import sys; compile(sys.stdin.read(), 'x.py', 'exec')")
	cmd.Stdin = strings.NewReader(src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3 cannot compile the placed source: %v\n%s\n%s", err, out, src)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("return s[::-1]\ndef x(): pass", prompt+"    ")
	f.Add("```\ndef reverse(s):\n\treturn s\n```", prompt)
	f.Add("\t'''\n", "def reverse(:\n\t")
	f.Fuzz(func(t *testing.T, generated, prompt string) {
		fn, mode := Extract(generated, "reverse", prompt)
		if mode == ModeFunction && !strings.Contains(fn, "reverse") {
			t.Fatalf("function mode without the name: %q", fn)
		}
		file := "class K:\n    def reverse(self):\n        return 1\n"
		if _, _, err := Place(file, Target{Name: "reverse", Line: 2}, fn); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDefines(t *testing.T) {
	file := "import x\n\nclass K:\n    def helper(self): pass\n\ndef target(a):\n    return a\n"
	for name, want := range map[string]bool{"target": true, "helper": true, "K": false, "x": false} {
		if got := Defines(file, name); got != want {
			t.Errorf("Defines(%q) = %v, want %v", name, got, want)
		}
	}
}
