package bench

import "testing"

func TestFailureDetail(t *testing.T) {
	cases := map[string]string{
		"x\nFAILED pkg/test_a.py::test_3 - AssertionError: assert 1 == 2\nFAILED pkg/test_a.py::test_4 - x": "test_3: AssertionError: assert 1 == 2",
		"ERROR pkg/test_a.py - ModuleNotFoundError: No module named 'numpy'":                                "collection: ModuleNotFoundError: No module named 'numpy'",
		"E     File \"m.py\", line 3\nE   SyntaxError: '[' was never closed\nERROR pkg/test_a.py\n1 error":  "SyntaxError: '[' was never closed",
		"Traceback (most recent call last):\n  File \"x\"\nMemoryError\n":                                   "MemoryError",
		"\nno tests ran in 0.01s\n": "no tests collected",
		"all fine":                  "",
	}
	for out, want := range cases {
		if got := failureDetail(out); got != want {
			t.Errorf("failureDetail(%q) = %q, want %q", out, got, want)
		}
	}
}
