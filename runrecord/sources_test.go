package runrecord

import (
	"maps"
	"slices"
	"testing"
)

// TestMergeSources works the rule by hand: a common project that hashes alike is
// kept, one that hashes otherwise is moved, a new one is added, and one the
// command does not run stays in the record.
func TestMergeSources(t *testing.T) {
	recorded := map[string]string{"flutils": "f1", "pyMonet": "m1", "calc": "c1"}
	now := map[string]string{"flutils": "f1", "pyMonet": "m2", "strings": "s1"}
	merged, added, moved := MergeSources(recorded, now)
	want := map[string]string{"flutils": "f1", "pyMonet": "m2", "calc": "c1", "strings": "s1"}
	if !maps.Equal(merged, want) {
		t.Errorf("merged %v, want %v", merged, want)
	}
	if !slices.Equal(added, []string{"strings"}) {
		t.Errorf("added %v", added)
	}
	if len(moved) != 1 || moved[0] != (Moved{"pyMonet", "m1", "m2"}) {
		t.Errorf("moved %v", moved)
	}
	if got := moved[0].String(); got != "pyMonet SHA-256 m1, now m2" {
		t.Errorf("moved reads %q", got)
	}
	if recorded["pyMonet"] != "m1" || len(recorded) != 3 {
		t.Errorf("Merge changed the record: %v", recorded)
	}
}

// TestMergeEmpty: nothing recorded adds every project; nothing on either
// side merges to nil (a record without sources stays without).
func TestMergeEmpty(t *testing.T) {
	merged, added, moved := MergeSources(nil, map[string]string{"b": "2", "a": "1"})
	if len(merged) != 2 || !slices.Equal(added, []string{"a", "b"}) || moved != nil {
		t.Errorf("into nothing: %v %v %v", merged, added, moved)
	}
	if merged, added, moved := MergeSources(nil, nil); merged != nil || added != nil || moved != nil {
		t.Errorf("nothing: %v %v %v", merged, added, moved)
	}
}
