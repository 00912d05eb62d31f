package testsupport

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireRepoExecDev makes missing RepoExec development data (the subset's
// tasks or the projects' sources) a failure.
const RequireRepoExecDev = "ACTOR_REQUIRE_REPOEXEC_DEV"

// RepoExecDev returns the RepoExec development subset's folder (holding
// tasks.jsonl; $ACTOR_REPOEXEC_DEV, default testdata/repoexec-dev, committed)
// and the folder holding the projects' test-apps/
// ($ACTOR_REPOS, default ../data beside the checkout). It calls Missing
// under RequireRepoExecDev when either is absent.
func RepoExecDev(t testing.TB) (dev, repos string) {
	t.Helper()
	dev = envOr("ACTOR_REPOEXEC_DEV", Path("testdata/repoexec-dev"))
	repos = envOr("ACTOR_REPOS", Path("../data"))
	NeedFile(t, filepath.Join(dev, "tasks.jsonl"), RequireRepoExecDev, "the RepoExec development subset (set ACTOR_REPOEXEC_DEV)")
	NeedFile(t, filepath.Join(repos, "test-apps", "pyMonet"), RequireRepoExecDev,
		"the dev projects' sources (set ACTOR_REPOS; scripts/repoexec-dev-sources.sh DIR lays them out)")
	return dev, repos
}

// envOr returns the variable key, or def when it is unset or empty.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
