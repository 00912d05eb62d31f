package bench

import (
	"fmt"
	"sort"
	"strings"

	"actor/bench/dataset"
	"actor/bench/envs"
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
