// Package codesrc reads source files of many languages with tree-sitter:
// which language a file is in, its definitions by name (functions,
// methods, types, classes) with their lines and headers, and its cut into
// retrievable blocks along them. Go, JavaScript, TypeScript (and TSX),
// Java, Rust, C, C++ and Python have grammars; other source files are cut
// into line windows. Python's own reader, for generation and the symbol
// table, is pysrc.
package codesrc

import (
	"path"
	"sort"
	"strings"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// Language is a grammar and the node kinds that define names in it.
type Language struct {
	Name string
	lang *ts.Language
	// defs maps a defining node kind to the kind of definition it makes.
	defs map[string]string
}

func newLanguage(name string, ptr unsafe.Pointer, defs map[string]string) *Language {
	return &Language{Name: name, lang: ts.NewLanguage(ptr), defs: defs}
}

var (
	cDefs = map[string]string{"function_definition": "function", "struct_specifier": "struct",
		"union_specifier": "union", "enum_specifier": "enum", "type_definition": "type"}
	cppDefs = merge(cDefs, map[string]string{"class_specifier": "class", "namespace_definition": "namespace"})
	jsDefs  = map[string]string{"function_declaration": "function", "generator_function_declaration": "function",
		"class_declaration": "class", "method_definition": "method", "variable_declarator": "variable"}
	tsDefs = merge(jsDefs, map[string]string{"interface_declaration": "interface", "type_alias_declaration": "type",
		"enum_declaration": "enum", "abstract_class_declaration": "class", "function_signature": "function",
		"method_signature": "method", "abstract_method_signature": "method"})
	typescript = newLanguage("typescript", tsts.LanguageTypescript(), tsDefs)
	byExt      = map[string]*Language{
		".go": newLanguage("go", tsgo.Language(), map[string]string{"function_declaration": "function",
			"method_declaration": "method", "type_spec": "type"}),
		".js": newLanguage("javascript", tsjs.Language(), jsDefs),
		".ts": typescript, ".mts": typescript, ".cts": typescript,
		".tsx": newLanguage("tsx", tsts.LanguageTSX(), tsDefs),
		".java": newLanguage("java", tsjava.Language(), map[string]string{"class_declaration": "class",
			"interface_declaration": "interface", "enum_declaration": "enum", "record_declaration": "record",
			"method_declaration": "method", "constructor_declaration": "constructor", "annotation_type_declaration": "annotation"}),
		".rs": newLanguage("rust", tsrust.Language(), map[string]string{"function_item": "function",
			"function_signature_item": "function", "struct_item": "struct", "enum_item": "enum", "union_item": "union",
			"trait_item": "trait", "impl_item": "impl", "mod_item": "module", "type_item": "type",
			"const_item": "const", "static_item": "static", "macro_definition": "macro"}),
		".c":  newLanguage("c", tsc.Language(), cDefs),
		".py": newLanguage("python", tspython.Language(), map[string]string{"function_definition": "function", "class_definition": "class"}),
	}
	// plain are source files without a grammar here: cut into windows.
	plain = []string{".rb", ".php", ".kt", ".kts", ".swift", ".scala", ".cs", ".sh", ".bash", ".lua", ".pl", ".r",
		".jl", ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".groovy", ".m", ".sql", ".vue", ".svelte", ".zig", ".nim"}
)

func init() {
	for _, e := range []string{".mjs", ".cjs", ".jsx"} {
		byExt[e] = byExt[".js"]
	}
	cpp := newLanguage("cpp", tscpp.Language(), cppDefs)
	for _, e := range []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"} {
		byExt[e] = cpp
	}
	// a header is C++ when its repository says so; C's grammar reads most
	byExt[".h"] = byExt[".c"]
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Lang returns the language of a file by its name's extension, or nil
// when there is no grammar for it.
func Lang(file string) *Language { return byExt[strings.ToLower(path.Ext(file))] }

// Source reports whether a file is source code this package cuts: with a
// grammar or in line windows.
func Source(file string) bool {
	ext := strings.ToLower(path.Ext(file))
	if byExt[ext] != nil {
		return true
	}
	for _, e := range plain {
		if e == ext {
			return true
		}
	}
	return false
}

// Globs are the file-name patterns of the source files Source accepts,
// for a walk's Include.
func Globs() []string {
	var out []string
	for e := range byExt {
		out = append(out, "*"+e)
	}
	for _, e := range plain {
		out = append(out, "*"+e)
	}
	sort.Strings(out)
	return out
}
