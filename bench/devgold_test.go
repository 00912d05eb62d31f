package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"actor/bench/envs"
	"actor/bench/results"
	"actor/dataset"
	"actor/internal/testsupport"
)

// devProjects are the projects of the RepoExec development subset.
var devProjects = []string{"test-apps/python-string-utils", "test-apps/flutils", "test-apps/pyMonet"}

// TestDevGold is the harness's self-check on the RepoExec development
// subset: every gold solution passes when run in its project's locked
// environment (actor bench setup) with the projects' sources under
// $ACTOR_REPOS (codamosa's test-apps, or scripts/repoexec-dev-sources.sh).
// It skips when one of them is missing, and fails instead under
// ACTOR_REQUIRE_REPOEXEC_DEV=1 (as CI sets it).
func TestDevGold(t *testing.T) {
	data, repos := testsupport.RepoExecDev(t)
	envDir := envs.DefaultDir()
	var missing []string
	for _, p := range devProjects {
		if !dirExists(filepath.Join(repos, p)) {
			missing = append(missing, "the sources of "+p+" under "+repos+" (ACTOR_REPOS)")
		}
		if _, ok := envs.Interpreter(envDir, p); !ok {
			missing = append(missing, "the environment of "+p+" in "+envDir+" (actor bench setup)")
		}
	}
	if len(missing) > 0 {
		testsupport.Missing(t, testsupport.RequireRepoExecDev, "missing: %s", strings.Join(missing, "; "))
	}
	out := t.TempDir()
	res, err := Run(context.Background(), Config{Benchmark: dataset.RepoExec, Data: data, Repos: repos, Envs: envDir, Gold: true, Out: out, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Groups[0]
	if g.Passed != 68 || g.Samples != 68 {
		recs, _ := results.Read(filepath.Join(out, results.SamplesFile))
		var bad []string
		for _, r := range recs {
			if r.Status != results.StatusPassed {
				bad = append(bad, fmt.Sprintf("task %s: %s %s", r.TaskID, r.Status, r.Reason))
			}
		}
		t.Fatalf("gold passed %d of %d samples, want 68 of 68:\n%s", g.Passed, g.Samples, strings.Join(bad, "\n"))
	}
	if !strings.Contains(res.Meta.Python, "Python "+envs.PythonVersion+".") {
		t.Errorf("interpreters %q, want the environments' Python %s", res.Meta.Python, envs.PythonVersion)
	}
}
