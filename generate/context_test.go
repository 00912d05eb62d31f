package generate

import (
	"slices"
	"strings"
	"testing"

	"actor/engine"
	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
	"actor/tokenizer"
)

// shopRepo: report.py's price_list is the target; its body (SECRET_BODY)
// must never be shown; it imports format_price from money.py.
var shopRepo = map[string]string{
	"shop/__init__.py": "VERSION = 1\n",
	"shop/money.py":    "def format_price(cents):\n    \"\"\"Cents as a price.\"\"\"\n    return f\"{cents / 100:.2f}\"\n",
	"shop/report.py": "\"\"\"Reports.\"\"\"\nfrom .money import format_price\n\n\n" +
		"def header():\n    return 'Report'\n\n\n" +
		"def price_list(items):\n    \"\"\"Lines of prices, with format_price.\"\"\"\n    return SECRET_BODY\n\n\n" +
		"def footer():\n    return 'end'\n",
}

func shopTarget(t *testing.T, c *Corpus, root string) retrieve.Target {
	t.Helper()
	tg, err := retrieve.AtLine(root, "shop/report.py", 10)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// The file's code and the definitions in scope reach the prompt in every
// format; the target's own lines never do.
func TestFrameShowsFileAndSymbolsNotTheTarget(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), shopRepo)
	c, err := ReadCorpus(root, index.WalkOptions{Include: []string{"*.py"}})
	if err != nil {
		t.Fatal(err)
	}
	tg := shopTarget(t, c, root)
	_, tok := loadTiny(t)
	for _, f := range []retrieve.Format{retrieve.FormatAuthors, retrieve.FormatPlain, retrieve.FormatFIM} {
		fr := &framer{opt: ContextOptions{Format: f, InFile: true, Symbols: true, FileTokens: 1000, SymbolTokens: 200},
			corpus: c, tok: tok}
		frame, err := fr.frame(tg, false)
		if err != nil {
			t.Fatal(err)
		}
		p := frame.Assemble(nil)
		if strings.Contains(p.Text, "SECRET_BODY") {
			t.Fatalf("%s: the target's body is shown:\n%s", f, p.Text)
		}
		for _, want := range []string{"from .money import format_price", "def header():", "Cents as a price."} {
			if !strings.Contains(p.Text, want) {
				t.Errorf("%s: prompt lacks %q:\n%s", f, want, p.Text)
			}
		}
		// footer, below the function: the FIM suffix, else a definition
		// in scope.
		if got := strings.Contains(frame.Below, "def footer"); got != (f == retrieve.FormatFIM) {
			t.Errorf("%s: code below the function shown: %v", f, got)
		}
		if !strings.HasSuffix(strings.TrimSuffix(p.Text, retrieve.FIMMiddleToken), tg.Prompt) &&
			!strings.Contains(p.Text, tg.Prompt+retrieve.FIMSuffixToken) {
			t.Errorf("%s: the target's prompt does not end the code above:\n%s", f, p.Text)
		}
		var syms []string
		for _, s := range frame.Symbols {
			syms = append(syms, s.Source+": "+s.Why+": "+strings.SplitN(s.Text, "\n", 2)[0])
		}
		want := []string{"symbol: imported as format_price: def format_price(cents):"}
		if f != retrieve.FormatFIM {
			want = append(want, "symbol: defined in the target's module: def footer():")
		}
		if !slices.Equal(syms, want) {
			t.Errorf("%s: symbols %q, want %q (header is in the file code)", f, syms, want)
		}
	}
}

// The FIM prompt's tokens for Qwen2.5-Coder: one repository name, a file
// separator per file, then prefix, suffix and middle in that order, the
// middle last; the block spans line up with the whole prompt's tokens.
func TestFIMTokenLayoutQwen(t *testing.T) {
	m, tok := loadModel(t, testsupport.Model(t, "qwen2.5-coder-0.5b"), engine.Options{Threads: 1, ContextLength: 512})
	if ModelFormat(tok) != retrieve.FormatRepo || !SupportsFormat(tok, retrieve.FormatFIM) {
		t.Fatalf("Qwen2.5-Coder's format: %s (want repo), fim supported: %t", ModelFormat(tok), SupportsFormat(tok, retrieve.FormatFIM))
	}
	d := newDecoder(t, m, tok, DecoderOptions{Blocks: NewBlockStore(0)})
	root := testsupport.WriteTree(t, t.TempDir(), shopRepo)
	c, err := ReadCorpus(root, index.WalkOptions{Include: []string{"*.py"}})
	if err != nil {
		t.Fatal(err)
	}
	tg := shopTarget(t, c, root)
	fr := &framer{opt: ContextOptions{Format: retrieve.FormatFIM, InFile: true, Symbols: true, FileTokens: 1000, SymbolTokens: 200},
		corpus: c, tok: tok}
	frame, err := fr.frame(tg, false)
	if err != nil {
		t.Fatal(err)
	}
	block := retrieve.Result{Candidate: c.Blocks[0]}
	p := frame.Assemble([]retrieve.Result{block})
	ids, spans := d.encode(p, false)
	id := func(s string) int32 {
		v, ok := tok.TokenID(s)
		if !ok {
			t.Fatalf("no %s", s)
		}
		return v
	}
	var specials []int32
	for _, x := range ids {
		if slices.Contains([]int32{id(retrieve.RepoNameToken), id(retrieve.FileSepToken), id(retrieve.FIMPrefixToken),
			id(retrieve.FIMSuffixToken), id(retrieve.FIMMiddleToken)}, x) {
			specials = append(specials, x)
		}
	}
	want := []int32{id(retrieve.RepoNameToken), id(retrieve.FileSepToken), id(retrieve.FileSepToken), id(retrieve.FileSepToken),
		id(retrieve.FIMPrefixToken), id(retrieve.FIMSuffixToken), id(retrieve.FIMMiddleToken)}
	if !slices.Equal(specials, want) || ids[len(ids)-1] != id(retrieve.FIMMiddleToken) {
		t.Errorf("special tokens %v, want %v (the symbol's file, the block's file, the target's file)", specials, want)
	}
	if len(spans) != 2 || spans[0].start != 0 || spans[1].start != spans[0].end {
		t.Errorf("token spans %+v: want the head with its symbol, then the block", spans)
	}
	// Counting as the prompt is encoded: the special texts are one token.
	n, _ := TokenCounter{Tok: tok, Special: true}.CountTokens(retrieve.FileSepToken)
	if n != 1 {
		t.Errorf("a file separator counts %d tokens", n)
	}
}

// Name lookup on a worked case: at "return format_" ACToR's re-retrieval
// puts the definition that extends the name before the dense re-query's
// blocks; with LookupOnly before the current blocks; a token outside a
// name retrieves densely only (or, lookup only, keeps the context).
func TestNameLookupAtCriticalToken(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), shopRepo)
	c, err := ReadCorpus(root, index.WalkOptions{Include: []string{"*.py"}})
	if err != nil {
		t.Fatal(err)
	}
	tg := shopTarget(t, c, root)
	dense := retrieve.Result{Candidate: blockOf(t, c, "shop/__init__.py")}
	current := retrieve.Result{Candidate: blockOf(t, c, "shop/money.py")}
	run := func(mode Lookup, text string) ([]retrieve.Result, TokenEvent) {
		g := &actor{base: base{fr: &framer{opt: ContextOptions{Lookup: mode}, corpus: c, tok: (*tokenizer.Tokenizer)(nil)}},
			r: &switchRetriever{first: dense, second: dense}}
		cr := &critical{g: g, t: tg, cur: retrieve.Prompt{Blocks: []retrieve.Result{current}}}
		var ev TokenEvent
		res, err := cr.retrieve(text, &ev)
		if err != nil {
			t.Fatal(err)
		}
		return res, ev
	}
	res, ev := run(LookupAdd, "    return format_")
	if len(res) != 2 || res[0].Source != retrieve.SourceLookup || res[0].Path != "shop/money.py" || res[1].Path != "shop/__init__.py" || ev.Lookup != "format_" {
		t.Errorf("lookup add: %+v (lookup %q)", res, ev.Lookup)
	}
	res, _ = run(LookupOnly, "    return format_")
	if len(res) != 2 || res[0].Source != retrieve.SourceLookup || res[1].Start != current.Start || res[1].Source != "" {
		t.Errorf("lookup only: %+v", res)
	}
	if res, ev = run(LookupAdd, "    return ("); len(res) != 1 || res[0].Path != "shop/__init__.py" || ev.Lookup != "" {
		t.Errorf("no name, lookup add: %+v", res)
	}
	if res, _ = run(LookupOnly, "    return ("); res != nil {
		t.Errorf("no name, lookup only: %+v, want the context kept", res)
	}
}
