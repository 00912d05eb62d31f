// Package envs makes and finds the Python test environments of the
// benchmarks' projects: one virtual environment per RepoExec project, built
// from a lock file committed here (repoexec/<name>.lock, compiled from
// repoexec/<name>.in: the project's package.txt pins, as the benchmark's
// image installs them, less the pins that cannot install, together
// with the image's own packages, repoexec/image.txt), resolved as the
// packages stood when the benchmark's sources were taken (CutOff) for the
// benchmark image's Python version; and the image's system files that tests
// read (SystemFiles). The harness runs each task with its project's
// environment.
package envs

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Resolution settings of the lock files.
const (
	// CutOff is the resolver's exclude-newer date: no release published
	// after it is used. The newest pins of the projects' package.txt files
	// (boto3/botocore 1.33.9) date from 2023-12-06.
	CutOff = "2023-12-08T00:00:00Z"
	// PythonVersion is the minor version of the benchmark's image
	// (python:3.10.2-slim-bullseye).
	PythonVersion = "3.10"
	// Platform is the target the locks are resolved for.
	Platform = "x86_64-unknown-linux-gnu"
	// SpecDir is the folder of the .in and .lock files, relative to this
	// package (and to the repository root as bench/envs/repoexec).
	SpecDir = "repoexec"
)

//go:embed repoexec
var embedded embed.FS

// Spec is one project's environment description.
type Spec struct {
	// Name is the environment's folder name (Name(Project)).
	Name string
	// Project is the project path of the tasks, e.g. "test-apps/black/src".
	Project string
	// Requirements are the requirement lines of the .in file.
	Requirements []string
	// Dropped lists the package.txt pins left out, each with its reason;
	// Added the requirements taken from elsewhere (the project's own
	// metadata), each with its reason.
	Dropped, Added []string
	// Lock is the lock file's content (empty when not compiled yet).
	Lock []byte
}

// Name returns the environment name of a project path: the path without
// "test-apps/", with "/" written "+" (as RepoExec's data folders do).
func Name(project string) string {
	p := strings.Trim(filepath.ToSlash(project), "/")
	p = strings.TrimPrefix(p, "test-apps/")
	return strings.ReplaceAll(p, "/", "+")
}

// Specs returns the embedded RepoExec environment specs, sorted by name.
func Specs() ([]Spec, error) {
	return readSpecs(func(name string) ([]byte, error) { return embedded.ReadFile(SpecDir + "/" + name) },
		func() ([]string, error) {
			ents, err := embedded.ReadDir(SpecDir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return names, err
		})
}

// SpecsIn reads the specs from a folder (the repository's
// bench/envs/repoexec, which `actor bench lock` rewrites).
func SpecsIn(dir string) ([]Spec, error) {
	return readSpecs(func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) },
		func() ([]string, error) {
			ents, err := os.ReadDir(dir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return names, err
		})
}

func readSpecs(read func(string) ([]byte, error), list func() ([]string, error)) ([]Spec, error) {
	names, err := list()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Spec
	for _, n := range names {
		if !strings.HasSuffix(n, ".in") {
			continue
		}
		b, err := read(n)
		if err != nil {
			return nil, err
		}
		s, err := ParseIn(n, b)
		if err != nil {
			return nil, err
		}
		if lock, err := read(strings.TrimSuffix(n, ".in") + ".lock"); err == nil {
			s.Lock = lock
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no environment specs (*.in)")
	}
	return out, nil
}

// ParseIn reads a .in file: a "# project: PATH" line, "# dropped: PIN:
// reason" and "# added: REQUIREMENT: reason" lines, other comments, and
// one requirement a line.
func ParseIn(file string, data []byte) (Spec, error) {
	s := Spec{Name: strings.TrimSuffix(filepath.Base(file), ".in")}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "# project:"):
			s.Project = strings.TrimSpace(strings.TrimPrefix(line, "# project:"))
		case strings.HasPrefix(line, "# dropped:"):
			s.Dropped = append(s.Dropped, strings.TrimSpace(strings.TrimPrefix(line, "# dropped:")))
		case strings.HasPrefix(line, "# added:"):
			s.Added = append(s.Added, strings.TrimSpace(strings.TrimPrefix(line, "# added:")))
		case strings.HasPrefix(line, "#"):
		case strings.ContainsAny(line, " \t#;"):
			return Spec{}, fmt.Errorf("%s:%d: %q is not a plain requirement", file, n, line)
		default:
			s.Requirements = append(s.Requirements, line)
		}
	}
	if s.Project == "" {
		return Spec{}, fmt.Errorf("%s: no \"# project: PATH\" line", file)
	}
	if Name(s.Project) != s.Name {
		return Spec{}, fmt.Errorf("%s: project %s should be in %s.in", file, s.Project, Name(s.Project))
	}
	if len(s.Requirements) == 0 {
		return Spec{}, fmt.Errorf("%s: no requirement", file)
	}
	return s, nil
}

// Interpreter returns the Python of project's environment under dir, if
// that environment was set up.
func Interpreter(dir, project string) (string, bool) {
	p := filepath.Join(dir, Name(project), "bin", "python")
	if _, err := os.Stat(filepath.Join(dir, Name(project), stampFile)); err != nil {
		return p, false
	}
	_, err := os.Stat(p)
	return p, err == nil
}

// DefaultDir is where `actor bench setup` puts the environments and the
// harness looks for them: $ACTOR_BENCH_ENVS, else /opt/actor/bench-envs
// (a folder every user can reach, as the sandbox users must).
func DefaultDir() string {
	if d := os.Getenv("ACTOR_BENCH_ENVS"); d != "" {
		return d
	}
	return "/opt/actor/bench-envs"
}
