package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"actor/bench/candidate"
	"actor/bench/sandbox"
	"actor/dataset"
)

// testFileName is the file a RepoExec test program is written to, inside
// the module's package folder so its relative imports resolve.
const testFileName = "test_actor_candidate.py"

// prefixRe finds the absolute /input/ and /output/ prefixes of the
// original harness's Docker image at the start of string literals.
var prefixRe = regexp.MustCompile(`(["'])/(input|output)/`)

// outputRefRe finds the expected-output files a test program reads.
var outputRefRe = regexp.MustCompile(`["']/output/([^"'\n]+)["']`)

// prepared is a sample's workspace, ready to run.
type prepared struct {
	dir  string   // working directory of the test
	args []string // interpreter arguments
	env  []string // extra environment
	// image: the run gets a root of its own laid out as the benchmark's
	// image: binds are its mounts and rootDir its working directory.
	image   bool
	binds   []sandbox.Bind
	rootDir string
}

// imageRoot is the folder of a workspace on which a run's own root is
// built.
const imageRoot = ".root"

// prepare builds the workspace of one sample in ws: a copy of the task's
// repository with fn in place of the gold function, and the test to run.
func (r *runner) prepare(ws string, t *dataset.Task, root, fn string) (*prepared, error) {
	for _, d := range []string{"home", "tmp"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			return nil, err
		}
	}
	if t.Check() == dataset.CheckRunFile {
		return r.prepareRunFile(ws, t, root, fn)
	}
	return r.prepareProgram(ws, t, root, fn)
}

// prepareProgram sets up a RepoExec sample: the project copied to
// ws/input/<project> (the /input/ prefix), the module file and the test
// program holding fn, the expected outputs the program reads copied under
// ws/output (the /output/ prefix), and pytest run on the program from the
// module's package folder.
func (r *runner) prepareProgram(ws string, t *dataset.Task, root, fn string) (*prepared, error) {
	proj := filepath.Join(ws, "input", filepath.FromSlash(t.Project))
	if err := copyTree(root, proj); err != nil {
		return nil, err
	}
	if err := placeInFile(filepath.Join(proj, filepath.FromSlash(t.File)), goldTarget(t), fn); err != nil {
		return nil, err
	}
	program := t.Test
	if candidate.Defines(program, t.EntryPoint) {
		var err error
		if program, _, err = candidate.Place(program, candidate.Target{Name: t.EntryPoint, Gold: t.Gold}, fn); err != nil {
			return nil, err
		}
	}
	for _, m := range outputRefRe.FindAllStringSubmatch(program, -1) {
		rel := filepath.Clean(filepath.FromSlash(m[1]))
		if strings.HasPrefix(rel, "..") {
			continue
		}
		src := filepath.Join(r.outputs, rel)
		if _, err := os.Stat(src); err != nil {
			continue // the test fails on its own, naming the file
		}
		if err := copyFile(src, filepath.Join(ws, "output", rel)); err != nil {
			return nil, err
		}
	}
	if !r.image {
		program = prefixRe.ReplaceAllString(program, "${1}"+filepath.ToSlash(ws)+"/${2}/")
	}
	parts := strings.Split(t.Module, ".")
	pkg := filepath.Join(parts[:len(parts)-1]...)
	testFile := filepath.Join(proj, pkg, testFileName)
	if err := os.WriteFile(testFile, []byte(program), 0o644); err != nil {
		return nil, err
	}
	ini := filepath.Join(ws, "pytest.ini")
	if err := os.WriteFile(ini, []byte("[pytest]\n"), 0o644); err != nil {
		return nil, err
	}
	p := &prepared{dir: proj}
	if r.image {
		// As in the benchmark's image: the sources at /input, the expected
		// outputs at /output, the project at /package (the working
		// directory), root's home and /tmp the sample's own.
		if err := os.MkdirAll(filepath.Join(ws, imageRoot), 0o755); err != nil {
			return nil, err
		}
		in := "/input/" + strings.Trim(filepath.ToSlash(t.Project), "/")
		p.image, p.dir, p.rootDir, proj = true, ws, "/package", in
		testFile = filepath.Join(in, pkg, testFileName)
		p.binds = []sandbox.Bind{
			{Source: filepath.Join(ws, "input"), Target: "/input"},
			{Source: filepath.Join(ws, "output"), Target: "/output"},
			{Source: filepath.Join(ws, "input", filepath.FromSlash(t.Project)), Target: "/package"},
			{Source: filepath.Join(ws, "home"), Target: "/root"},
			{Source: filepath.Join(ws, "tmp"), Target: "/tmp"},
		}
		p.binds = append(p.binds, r.system...)
		if err := os.MkdirAll(filepath.Join(ws, "output"), 0o755); err != nil {
			return nil, err
		}
	}
	p.args = []string{"-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--noconftest",
		"-c", ini, "--rootdir", proj, testFile}
	return p, nil
}

// prepareRunFile sets up a CoderEval sample: the project copied to ws/repo
// with fn in the target file and, when the project has one, in the file's
// *_passk_validte.py twin (CoderEval's test entry point), which is then the
// file run; otherwise the target file itself runs.
func (r *runner) prepareRunFile(ws string, t *dataset.Task, root, fn string) (*prepared, error) {
	repo := filepath.Join(ws, "repo")
	if err := copyTree(root, repo); err != nil {
		return nil, err
	}
	target := filepath.Join(repo, filepath.FromSlash(t.File))
	if err := placeInFile(target, goldTarget(t), fn); err != nil {
		return nil, err
	}
	run := target
	twin := strings.TrimSuffix(target, ".py") + "_" + t.EntryPoint + "_passk_validte.py"
	if _, err := os.Stat(twin); err == nil {
		if err := placeInFile(twin, goldTarget(t), fn); err != nil {
			return nil, err
		}
		run = twin
	}
	return &prepared{dir: repo, args: []string{run}, env: []string{"PYTHONPATH=" + repo}}, nil
}

// placeInFile replaces the target function in file by fn.
func placeInFile(file string, t candidate.Target, fn string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, _, err := candidate.Place(string(b), t, fn)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	return os.WriteFile(file, []byte(out), 0o644)
}

// skipDirs are not copied into workspaces.
var skipDirs = map[string]bool{".git": true, "__pycache__": true, ".tox": true, ".mypy_cache": true, ".pytest_cache": true, "node_modules": true}

// copyTree copies the folder src to dst (created), keeping symbolic links
// as links and leaving out skipDirs.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if skipDirs[d.Name()] && p != src {
				return filepath.SkipDir
			}
			return os.MkdirAll(out, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, out)
		case d.Type().IsRegular():
			return copyFile(p, out)
		}
		return nil // sockets, devices: not needed to run tests
	})
}

// copyFile copies a regular file, creating dst's folder.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// goldTarget describes the task's gold function for candidate.Place.
func goldTarget(t *dataset.Task) candidate.Target {
	return candidate.Target{Name: t.EntryPoint, Gold: t.Gold, Line: t.Line}
}
