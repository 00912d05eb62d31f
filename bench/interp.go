package bench

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"actor/bench/envs"
	"actor/bench/sandbox"
	"actor/dataset"
)

// choosePythons picks every task's interpreter: its project's environment
// under cfg.Envs when that was set up, else cfg.Python. It returns what the
// sandbox must reach and a description for the results' metadata.
func (r *runner) choosePythons(tasks []*dataset.Task) (reach []string, desc string, err error) {
	r.pythons = map[string]pythonInfo{}
	byPath := map[string]pythonInfo{}
	resolve := func(name string) (pythonInfo, error) {
		if p, ok := byPath[name]; ok {
			return p, nil
		}
		p, err := resolvePython(name)
		if err != nil {
			return p, err
		}
		byPath[name] = p
		reach = append(reach, p.reach...)
		return p, nil
	}
	warned := map[string]bool{}
	groups := map[string][]string{} // interpreter description -> projects
	for _, t := range tasks {
		name, label := r.cfg.Python, "--python "+r.cfg.Python
		if r.cfg.Envs != "" && t.Benchmark == dataset.RepoExec {
			if p, ok := envs.Interpreter(r.cfg.Envs, t.Project); ok {
				name, label = p, "environment "+envs.Name(t.Project)
			} else if !warned[t.Project] {
				warned[t.Project] = true
				fmt.Fprintf(r.cfg.Log, "warning: no environment for %s in %s (run actor bench setup): its tasks run with %s\n", t.Project, r.cfg.Envs, r.cfg.Python)
			}
		}
		p, err := resolve(name)
		if err != nil {
			return nil, "", err
		}
		r.pythons[t.ID] = p
		key := label + " (Python " + p.version + ")"
		if !contains(groups[key], t.Project) {
			groups[key] = append(groups[key], t.Project)
		}
	}
	var parts []string
	for k, projects := range groups {
		parts = append(parts, fmt.Sprintf("%s: %s", k, strings.Join(projects, ", ")))
	}
	sort.Strings(parts)
	return reach, strings.Join(parts, "; "), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// systemBinds returns the binds of the benchmark image's system files that
// actor bench setup put under cfg.Envs, warning about each that cannot be
// bound: not set up (the runs then see this machine's file), or a path this
// machine has no file at (the runs then have none).
func (r *runner) systemBinds() []sandbox.Bind {
	if r.cfg.Envs == "" {
		return nil
	}
	var out []sandbox.Bind
	for _, f := range envs.SystemFiles {
		p, ok := envs.SystemFileIn(r.cfg.Envs, f)
		if !ok {
			fmt.Fprintf(r.cfg.Log, "warning: no copy of the benchmark image's %s in %s (run actor bench setup): the runs see this machine's\n", f.Path, r.cfg.Envs)
			continue
		}
		if st, err := os.Stat(f.Path); err != nil || !st.Mode().IsRegular() {
			fmt.Fprintf(r.cfg.Log, "warning: this machine has no file %s to put the benchmark image's over: the runs have none\n", f.Path)
			continue
		}
		out = append(out, sandbox.Bind{Source: p, Target: f.Path})
	}
	return out
}
