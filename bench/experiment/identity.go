package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"actor/generate"
	"actor/internal/atomicfile"
	"actor/models"
	"actor/pipeline"
	"actor/runrecord"
)

// configFile records, in a run folder, what made its samples.
const configFile = "experiment.json"

// runConfig is a run folder's configFile: the identity of the samples in
// it, independent of where the checkout, the data and the repositories
// lie, so that a results folder committed on one machine is continued on
// another.
type runConfig struct {
	// Key is every actor run flag but the task list, -n, --threads and
	// --batch-samples, with paths cut to their last element (see
	// portableKey).
	Key []string `json:"key"`
	// DataSHA256 digests the benchmark data (--data): the same folder name
	// holding other tasks is another configuration.
	DataSHA256 string `json:"data_sha256,omitempty"`
	// ProbeSHA256 is the SHA-256 of the --probe file, if any: a probe
	// file replaced under the same name is another configuration.
	ProbeSHA256 string `json:"probe_sha256,omitempty"`
	// Sources is each project's sources SHA-256 (Settings.Sources): the
	// same folder name laid out with other files (a project without its
	// tests/) gives retrieval other blocks. Projects are added as runs
	// reach them; a record without them adopts the current ones.
	Sources map[string]string `json:"sources,omitempty"`
	// Lanes is how many of a task's samples decoded side by side
	// (Settings.Lanes); 0 in records written before it was kept, which
	// adopt the current lanes.
	Lanes int `json:"lanes,omitempty"`
	// Version is keyVersion when the record was written.
	Version int `json:"version,omitempty"`
}

// keyVersion numbers what a key's flags mean. Version 0 (no version):
// --method actor was the paper's exact ACToR, as --method actor --exact
// is since version 1, when ACToR took its measured levers by default.
// Version 2 moved --batch-samples from the key to Lanes. Version 3 changed
// ACToR's default context (pipeline.DefaultContext): until then ACToR
// without --exact or --no-context added --in-file --symbols, which its
// key now says with --no-context. Version 4 gave every method the
// default context: until then the other methods showed what their switches
// said, which their keys now say with --no-context.
const keyVersion = 4

// currentKey reads a recorded key of version v as today's flags would
// say it.
func currentKey(key []string, v int) []string {
	if v < 2 {
		key = slices.DeleteFunc(slices.Clone(key), func(a string) bool { return a == batchFlag })
	}
	i := slices.Index(key, "--method")
	if i < 0 || i+1 >= len(key) || slices.Contains(key, "--exact") || slices.Contains(key, "--no-context") {
		return key
	}
	actor := key[i+1] == generate.MethodACToR
	switch {
	case actor && v < 1:
		return slices.Insert(slices.Clone(key), i+2, "--exact")
	case actor && v >= 3, !actor && v >= 4:
		return key
	}
	m, err := pipeline.DefaultMethod().ParseArgs(key[i:])
	if err != nil {
		return key // not a key this actor wrote: it will not match
	}
	m.NoContext = true
	if actor {
		m.InFile, m.Symbols = true, true
	}
	return append(slices.Clone(key[:i]), m.Args()...)
}

// pathFlags are the run flags whose values are files or folders.
var pathFlags = []string{"--data", "--repos", "--probe", "--labels", "--model", "--kv-store"}

// portableKey returns key with the value of every path flag cut to its
// last element: "/home/a/data/repoexec-dev" and "../data/repoexec-dev"
// are the same data; what the files hold is checked by digest.
func portableKey(key []string) []string {
	out := slices.Clone(key)
	for i := 0; i+1 < len(out); i++ {
		if slices.Contains(pathFlags, out[i]) {
			out[i+1] = filepath.Base(filepath.Clean(out[i+1]))
			i++
		}
	}
	return out
}

// dataDigest is the SHA-256 of a file, or of a folder's files (their
// paths relative to it and their contents, in path order).
func dataDigest(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsDir() {
		return models.SHA256File(path)
	}
	h := sha256.New()
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		sum, err := models.SHA256File(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %s\n", filepath.ToSlash(rel), sum)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// identity is what run r's folder must hold.
func (p *Plan) identity(r Run) (runConfig, error) {
	want := runConfig{Key: portableKey(p.key(r)), Sources: maps.Clone(p.Settings.Sources), Lanes: p.Settings.Lanes(), Version: keyVersion}
	sum, err := dataDigest(p.Settings.Data)
	if err != nil {
		return want, fmt.Errorf("--data: %w", err)
	}
	want.DataSHA256 = sum
	if r.Spec.Probe != "" {
		if want.ProbeSHA256, err = models.SHA256File(r.Spec.Probe); err != nil {
			return want, fmt.Errorf("%s: %w", r.Name, err)
		}
	}
	return want, nil
}

// claim records the run's configuration in its folder, or checks that the
// folder holds samples of this configuration: the same flags, lanes, data
// and probe, and for every project both know the same sources (projects new
// to the record are added). A record written before
// paths were cut (absolute paths, no data digest) or before the key's
// flags meant what they mean now (keyVersion) or without lanes is read as
// its current form and rewritten.
func (p *Plan) claim(r Run) error {
	dir := p.RunDir(r.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	want, err := p.identity(r)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, configFile)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		var have runConfig
		if err := json.Unmarshal(data, &have); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		have.Key = currentKey(portableKey(have.Key), have.Version)
		if !slices.Equal(have.Key, want.Key) {
			return fmt.Errorf("%s holds samples made with other flags (%s), not %s: use another --out", dir, Quote(have.Key), Quote(want.Key))
		}
		if have.ProbeSHA256 != want.ProbeSHA256 {
			return fmt.Errorf("%s holds samples made with another probe (SHA-256 %s, now %s): use another --out", dir, have.ProbeSHA256, want.ProbeSHA256)
		}
		if have.Lanes != 0 && have.Lanes != want.Lanes {
			return fmt.Errorf("%s holds samples decoded %d side by side, not %d (--batch-samples with another -n: a sample's tokens depend on the samples beside it): use another --out",
				dir, have.Lanes, want.Lanes)
		}
		if have.DataSHA256 != "" && have.DataSHA256 != want.DataSHA256 {
			return fmt.Errorf("%s holds samples of other benchmark data (SHA-256 %s, now %s of %s): use another --out", dir, have.DataSHA256, want.DataSHA256, p.Settings.Data)
		}
		merged, _, moved := runrecord.MergeSources(have.Sources, want.Sources)
		if len(moved) > 0 {
			var names []string
			for _, m := range moved {
				names = append(names, m.String())
			}
			return fmt.Errorf("%s holds samples retrieved from other sources (%s, under %s): lay the projects out as before, or use another --out",
				dir, strings.Join(names, "; "), p.Settings.Repos)
		}
		want.Sources = merged
		if string(data) == string(encodeConfig(want)) {
			return nil
		}
	}
	return atomicfile.Write(path, encodeConfig(want))
}

func encodeConfig(c runConfig) []byte {
	b, _ := json.MarshalIndent(c, "", "  ")
	return append(b, '\n')
}

// recordedSources is what the run folders' records say their samples were
// retrieved from: per project, the distinct sources SHA-256 (one, unless
// folders made over different layouts are read together).
func (p *Plan) recordedSources() (map[string][]string, error) {
	out := map[string][]string{}
	for _, r := range p.Runs {
		data, err := os.ReadFile(filepath.Join(p.RunDir(r.Name), configFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var c runConfig
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(p.RunDir(r.Name), configFile), err)
		}
		for pr, h := range c.Sources {
			if !slices.Contains(out[pr], h) {
				out[pr] = append(out[pr], h)
			}
		}
	}
	return out, nil
}
