package serve

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"actor/generate"
)

// TestOpenAPIMethodsFollowRegistry keeps the API description's method
// enum equal to the registered methods, in their order.
func TestOpenAPIMethodsFollowRegistry(t *testing.T) {
	doc, err := os.ReadFile("../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+method: \{enum: \[([^\]]*)\]`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/openapi.yaml: no `method: {enum: [...]}` field")
	}
	var enum []string
	for _, name := range strings.Split(string(m[1]), ",") {
		enum = append(enum, strings.TrimSpace(name))
	}
	if want := generate.MethodNames(); !slices.Equal(enum, want) {
		t.Errorf("docs/openapi.yaml method enum %v, registered methods %v", enum, want)
	}
}
