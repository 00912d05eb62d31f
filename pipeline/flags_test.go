package pipeline

import (
	"reflect"
	"strings"
	"testing"

	"actor/generate"
)

// TestMethodArgs: a method renders as the flags that give it, --method
// first and the rest in declaration order (the order of the experiments'
// committed command lines), and parsing them gives the method back.
func TestMethodArgs(t *testing.T) {
	if got := strings.Join(DefaultMethod().Args(), " "); got != "--method rawprompt" {
		t.Errorf("DefaultMethod: %q", got)
	}
	d := actorMethod()
	lever := d
	lever.Exact, lever.Probe, lever.Name, lever.Layout, lever.KVReuse, lever.KVReuseTail, lever.SkipComments =
		true, "probes/m.probe", "actor-fast", "stable", true, true, true
	ctx := d
	ctx.Format, ctx.InFile, ctx.Symbols, ctx.Lookup, ctx.Probe, ctx.Name = "authors", true, true, "off", "p.probe", "actor-file-sym"
	trig := d
	trig.Exact, trig.Entropy = true, 1.7786545814558004
	rag := d
	rag.Method, rag.InFile, rag.Threshold, rag.Samples, rag.NoHeal = "rawrag", true, 0.75, 5, true
	for _, c := range []struct {
		m    Method
		want string
	}{
		{lever, "--method actor --exact --probe probes/m.probe --name actor-fast --layout stable --kv-reuse --kv-reuse-tail --skip-comments"},
		{ctx, "--method actor --format authors --in-file --symbols --name-lookup off --probe p.probe --name actor-file-sym"},
		{trig, "--method actor --exact --entropy-trigger 1.7786545814558004"},
		{rag, "--method rawrag --in-file --samples 5 --threshold 0.75 --no-heal"},
	} {
		args := c.m.Args()
		if got := strings.Join(args, " "); got != c.want {
			t.Errorf("Args:\n got %s\nwant %s", got, c.want)
		}
		back, err := DefaultMethod().ParseArgs(args)
		if err != nil || !reflect.DeepEqual(back, c.m) {
			t.Errorf("ParseArgs(%q) = %+v, %v; want %+v", args, back, err, c.m)
		}
	}
	for _, bad := range [][]string{{"--layuot", "stable"}, {"--samples", "x"}, {"stray"}} {
		if _, err := d.ParseArgs(bad); err == nil {
			t.Errorf("ParseArgs(%q) accepted", bad)
		}
	}
}

// TestExactChoosesACToR: --exact alone is the paper's ACToR; with another
// method, in either order, it is refused.
func TestExactChoosesACToR(t *testing.T) {
	m, err := DefaultMethod().ParseArgs([]string{"--exact"})
	if err != nil || m.Method != generate.MethodACToR || !m.Exact || m.Validate() != nil {
		t.Errorf("--exact: %+v, %v", m, err)
	}
	for _, args := range [][]string{{"--method", "rawrag", "--exact"}, {"--exact", "--method", "rawprompt"}} {
		m, err := DefaultMethod().ParseArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "--exact is the paper's ACToR") {
			t.Errorf("%q: %v", args, err)
		}
	}
}
