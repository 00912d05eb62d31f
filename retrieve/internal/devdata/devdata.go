// Package devdata finds the RepoExec development tasks and the projects'
// sources for tests: ACTOR_REPOEXEC_DEV (default ../shared/data/repoexec-dev
// beside the checkout) and ACTOR_REPOEXEC_REPOS, the folder holding
// test-apps/ (default ../data beside the checkout). When either is missing
// the test is skipped, or fails under ACTOR_REQUIRE_REPOEXEC=1.
package devdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Paths returns the tasks file and the repositories folder.
func Paths(t testing.TB) (tasks, repos string) {
	t.Helper()
	root := moduleRoot(t)
	dev := env("ACTOR_REPOEXEC_DEV", filepath.Join(root, "..", "shared", "data", "repoexec-dev"))
	repos = env("ACTOR_REPOEXEC_REPOS", filepath.Join(root, "..", "data"))
	tasks = filepath.Join(dev, "tasks.jsonl")
	for _, p := range []string{tasks, filepath.Join(repos, "test-apps", "python-string-utils")} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("ACTOR_REQUIRE_REPOEXEC") == "1" {
				t.Fatalf("ACTOR_REQUIRE_REPOEXEC=1 but %s is missing (set ACTOR_REPOEXEC_DEV / ACTOR_REPOEXEC_REPOS)", p)
			}
			t.Skipf("%s missing: RepoExec dev data not available (set ACTOR_REPOEXEC_DEV / ACTOR_REPOEXEC_REPOS)", p)
		}
	}
	return tasks, repos
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// moduleRoot walks up from the working folder to the one holding go.mod.
func moduleRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test folder")
		}
		dir = parent
	}
}
