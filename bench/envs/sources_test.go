package envs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"actor/internal/testsupport"
)

// TestBuildInPlace builds a one-function C extension laid out as tornado's
// speedups, in place, with the machine's python3: the module imports from
// the project folder, the build/ folder is gone, and a second call finds
// it built.
func TestBuildInPlace(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil || exec.Command(python, "-c", "import setuptools").Run() != nil {
		testsupport.Missing(t, "ACTOR_REQUIRE_SETUPTOOLS", "no python3 with setuptools here")
	}
	dir := t.TempDir()
	testsupport.WriteFile(t, dir, "pkg/__init__.py", "")
	testsupport.WriteFile(t, dir, "pkg/speedups.c", `#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "speedups", NULL, -1, methods};
PyMODINIT_FUNC PyInit_speedups(void) { return PyModule_Create(&mod); }
`)
	testsupport.WriteFile(t, dir, "setup.py", `from setuptools import setup, Extension
setup(name="pkg", packages=["pkg"], ext_modules=[Extension("pkg.speedups", ["pkg/speedups.c"])])
`)
	b := SourceBuild{Project: "test-apps/pkg", Source: "pkg/speedups.c", Built: "pkg/speedups.cpython-*.so"}
	built, err := BuildInPlace(context.Background(), python, dir, b)
	if err != nil || !built {
		t.Fatalf("built %v: %v", built, err)
	}
	imp := exec.Command(python, "-c", "import pkg.speedups as s; print(s.answer())")
	imp.Dir = dir
	out, err := imp.CombinedOutput()
	if err != nil || string(out) != "42\n" {
		t.Fatalf("import: %s %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "build")); !os.IsNotExist(err) {
		t.Errorf("build/ left behind: %v", err)
	}
	if built, err := BuildInPlace(context.Background(), python, dir, b); err != nil || built {
		t.Errorf("second call: built %v, %v", built, err)
	}
	if _, err := BuildInPlace(context.Background(), python, t.TempDir(), b); err == nil {
		t.Error("a project without the C file: no error")
	}
}
