package generate

import (
	"fmt"
	"slices"
	"strings"

	"actor/retrieve"
)

// MethodInfo describes one generation method to every place that offers
// it: the CLI's --method flag and its help, the server's requests and
// method list, the API description and the experiments. A method added
// with Register is offered by all of them.
type MethodInfo struct {
	// Name is the method's name in flags, requests and predictions files.
	Name string
	// Label is how tables and pages name it ("RepoCoder").
	Label string
	// Help is one line saying what the method does.
	Help string
	// Retrieves: the method reads the repository's blocks (it needs a
	// corpus even without context sources).
	Retrieves bool
	// Dense: it ranks blocks with the dense encoder (BM25, with a note,
	// when the corpus has none).
	Dense bool
	// Probed: it reads a critical-token probe unless its switches turn
	// critical-token inference off.
	Probed bool
	// Plain: it takes no context sources (generate.New refuses them), so
	// a default context is not added to it.
	Plain bool
	// New builds the method's generator from o (o.Method is Name; the
	// decoder, the configuration and the context are validated).
	New func(o Options) (Generator, error)
}

// methods are the registered methods in the order they are offered.
var methods = []MethodInfo{
	{Name: MethodACToR, Label: "ACToR", Help: "ACToR: retrieves again at the tokens its probe calls critical (the paper's method)",
		Retrieves: true, Dense: true, Probed: true, New: newACToRFromOptions},
	{Name: MethodRawPrompt, Label: "RawPrompt", Help: "no retrieved blocks: the target's signature and docstring (and the context sources asked for)",
		New: func(o Options) (Generator, error) { return NewRawPrompt(o.Decoder, o.Config), nil }},
	{Name: MethodRawRAG, Label: "RawRAG", Help: "one dense retrieval with the target's prompt, then decoding",
		Retrieves: true, Dense: true, New: newRawRAGFromOptions},
	{Name: MethodRepoCoder, Label: "RepoCoder", Help: "RepoCoder: 20-line windows ranked by token-set Jaccard similarity, a draft, retrieval again with the draft, the final decoding",
		Retrieves: true, New: func(o Options) (Generator, error) {
			return NewRepoCoder(o.Decoder, o.Config, o.Corpus.RepoCoder(o.Decoder.tok)), nil
		}},
	{Name: MethodRLCoder, Label: "RLCoder-style", Help: "RLCoder-style: BM25 candidates re-ranked by the dense encoder with a stop candidate (without RLCoder's trained weights)",
		Retrieves: true, Dense: true, New: func(o Options) (Generator, error) { return NewRLCoder(o.Decoder, o.Config, o.Corpus) }},
}

// Register adds a method; every place that offers methods offers it
// from then on. It panics on a name already taken or an incomplete
// description, as a programming error.
func Register(m MethodInfo) {
	if m.Name == "" || m.Label == "" || m.New == nil || strings.ContainsAny(m.Name, " ,/") {
		panic(fmt.Sprintf("generate: method %q: a name without spaces, commas or slashes, a label and a constructor are required", m.Name))
	}
	if _, ok := LookupMethod(m.Name); ok {
		panic(fmt.Sprintf("generate: method %q registered twice", m.Name))
	}
	methods = append(methods, m)
}

// LookupMethod returns the registered method called name.
func LookupMethod(name string) (MethodInfo, bool) {
	i := slices.IndexFunc(methods, func(m MethodInfo) bool { return m.Name == name })
	if i < 0 {
		return MethodInfo{}, false
	}
	return methods[i], true
}

// Methods returns the registered methods in the order they are offered.
func Methods() []MethodInfo { return slices.Clone(methods) }

// MethodNames returns the registered methods' names in order.
func MethodNames() []string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.Name
	}
	return names
}

// MethodHelp is the methods' names with their help lines, one per line,
// for a flag's or a command's help.
func MethodHelp() string {
	var b strings.Builder
	for _, m := range methods {
		fmt.Fprintf(&b, "  %-10s %s\n", m.Name, m.Help)
	}
	return b.String()
}

// UnknownMethod is the error for a name no method has, saying which
// names there are; what names it (a flag, a request field) comes first.
func UnknownMethod(what, name string) error {
	return fmt.Errorf("%s %q: want one of %s", what, name, strings.Join(MethodNames(), ", "))
}

func newRawRAGFromOptions(o Options) (Generator, error) {
	r, fallback, err := o.Corpus.QueryRetriever(retrieve.MeanPooling, false)
	if err != nil {
		return nil, err
	}
	g := NewRawRAG(o.Decoder, o.Config, r).(*oneShot)
	if fallback != "" {
		g.method += "+bm25"
		g.notes = append(g.notes, fallback)
	}
	return g, nil
}
