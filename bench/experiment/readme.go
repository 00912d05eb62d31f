package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"actor/models"
	"actor/probe"
)

// Machine describes where an experiment ran.
type Machine struct {
	CPU       string
	Cores     int
	GoVersion string
	OS        string
	Date      string
}

// ThisMachine describes the running machine: the CPU model from
// /proc/cpuinfo (where there is one), the logical cores, the Go version
// the binary was built with, and today's date (UTC).
func ThisMachine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		Date: time.Now().UTC().Format("2006-01-02")}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// readme is the experiment's README: how to reproduce it, its conditions,
// the machine, the configurations' state and every command.
func (p *Plan) readme(m Machine, rows []row) ([]byte, error) {
	s := p.Settings
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n## How to reproduce\n\n```\n%s\n```\n\n", titles[p.Experiment], s.Command)
	b.WriteString("Run the same command again to continue after an interruption or to render the report again: " +
		"samples already generated or tested are not repeated (each `actor run` skips the samples in its predictions, " +
		"and sampling is seeded by task and sample). `--dry-run` prints the commands below without running them. " +
		"The tables are in report.md.\n\n## Conditions\n\n")
	modelSHA, err := models.SHA256File(s.ModelFile)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "- benchmark %s: data %s, repositories %s\n", s.Benchmark, s.Data, s.Repos)
	sources, err := p.recordedSources()
	if err != nil {
		return nil, err
	}
	if len(sources) > 0 {
		var per []string
		for _, pr := range slices.Sorted(maps.Keys(sources)) {
			var hs []string
			for _, h := range sources[pr] {
				hs = append(hs, fmt.Sprintf("%.12s", h))
			}
			note := ""
			if len(hs) > 1 {
				note = " (differ between run folders)"
			}
			per = append(per, fmt.Sprintf("%s %s%s", pr, strings.Join(hs, " / "), note))
		}
		fmt.Fprintf(&b, "- sources SHA-256 per project, as the run folders record them (the files retrieval reads; experiment.json holds them whole): %s\n", strings.Join(per, ", "))
	}
	fmt.Fprintf(&b, "- model %s: file %s, SHA-256 %s\n", s.Model, filepath.Base(s.ModelFile), modelSHA)
	fmt.Fprintf(&b, "- tasks: %d of the %d in the data; n = %d samples per task; temperature %s; seed %d\n", len(s.Tasks), s.AllTasks, s.N, num(s.Temperature), s.Seed)
	if cut := p.cuts(); cut != "" {
		fmt.Fprintf(&b, "- cut to fit the machine: %s\n", cut)
	}
	fmt.Fprintf(&b, "- configurations generate %d tasks each in turn, so that their timings share the machine's load\n", s.Step)
	if len(s.RunArgs) > 0 {
		fmt.Fprintf(&b, "- extra flags of every actor run: `%s`\n", Quote(s.RunArgs))
	}
	if err := p.probeFacts(&b); err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "\n## Machine\n\n- CPU: %s, %d logical cores\n- Go: %s, %s\n- report rendered: %s\n", m.CPU, m.Cores, m.GoVersion, m.OS, m.Date)
	b.WriteString("\n## Configurations\n\n| configuration | folder | samples generated | samples tested |\n|---|---|---:|---:|\n")
	for _, r := range rows {
		gen, err := predicted(p.PredictionsFile(r.Name))
		if err != nil {
			return nil, err
		}
		n := 0
		for k := range gen {
			if p.inScope(k.task, k.sample) {
				n++
			}
		}
		tested := 0
		if r.g != nil {
			tested = r.g.Samples
		}
		fmt.Fprintf(&b, "| %s | runs/%s | %d of %d | %d |\n", r.Label, r.Name, n, len(s.Tasks)*s.N, tested)
	}
	b.WriteString("\n## Commands\n\nIn order (each configuration's samples are generated a few tasks at a time, in turns; shown here over all tasks):\n\n```\n")
	for _, c := range p.Commands() {
		fmt.Fprintf(&b, "actor %s\n", Quote(c))
	}
	b.WriteString("```\n")
	return b.Bytes(), nil
}

// cuts says what the experiment leaves out of the full setting (all tasks,
// n = 5).
func (p *Plan) cuts() string {
	s := p.Settings
	var out []string
	if len(s.Tasks) < s.AllTasks {
		out = append(out, fmt.Sprintf("%d of %d tasks (%s)", len(s.Tasks), s.AllTasks, strings.Join(s.Tasks, ", ")))
	}
	if s.N < 5 {
		out = append(out, fmt.Sprintf("n = %d instead of 5 (pass@k for k > %d undefined)", s.N, s.N))
	}
	if len(s.Only) > 0 {
		out = append(out, "only the configurations "+strings.Join(s.Only, ", "))
	}
	return strings.Join(out, "; ")
}

// probeFacts lists the probes with their SHA-256; for the ablations it
// also says whether the reference probe has the weights the labels train
// with every rule on.
func (p *Plan) probeFacts(b *bytes.Buffer) error {
	type named struct{ what, file string }
	var list []named
	if p.Settings.Probe != "" {
		list = append(list, named{"ACToR's probe", p.Settings.Probe})
	}
	for _, j := range p.Probes {
		list = append(list, named{"trained: " + Quote(p.TrainArgs(j, "FILE")), p.ProbeFile(j.Name)})
	}
	if len(list) == 0 {
		return nil
	}
	if p.Settings.Labels != "" {
		fmt.Fprintf(b, "- labels: %s\n", p.Settings.Labels)
	}
	b.WriteString("- probes:\n")
	for _, n := range list {
		sum, err := models.SHA256File(n.file)
		if err != nil {
			sum = p.recordedProbe(n.file)
		}
		fmt.Fprintf(b, "  - %s (%s): SHA-256 %s\n", filepath.Base(n.file), n.what, sum)
	}
	if p.Experiment == "ablations" {
		same, err := sameWeights(p.Settings.Probe, p.ProbeFile("all-rules"))
		if err == nil {
			fmt.Fprintf(b, "- the reference probe has the weights these labels train with every rule on: %v%s\n", same,
				map[bool]string{true: "", false: " (the rule ablations then differ from the reference in more than their rule)"}[same])
		}
	}
	return nil
}

// recordedProbe is the SHA-256 that the run folders using probe file
// recorded, for a file not there (trained probes are not committed: the
// same command trains them again, bit-identically, from the labels).
func (p *Plan) recordedProbe(file string) string {
	for _, r := range p.Runs {
		if r.Spec.Probe != file {
			continue
		}
		data, err := os.ReadFile(filepath.Join(p.RunDir(r.Name), configFile))
		var c runConfig
		if err == nil && json.Unmarshal(data, &c) == nil && c.ProbeSHA256 != "" {
			return c.ProbeSHA256 + " (as runs/" + r.Name + " recorded it; the file is trained again when the experiment runs)"
		}
	}
	return "not there yet"
}

// sameWeights reports whether two probe files hold the same members and
// threshold (training metrics aside).
func sameWeights(a, b string) (bool, error) {
	pa, err := probe.Load(a)
	if err != nil {
		return false, err
	}
	pb, err := probe.Load(b)
	if err != nil {
		return false, err
	}
	if pa.Threshold != pb.Threshold || len(pa.Members) != len(pb.Members) {
		return false, nil
	}
	for i := range pa.Members {
		ma, mb := pa.Members[i], pb.Members[i]
		if !slices.Equal(ma.W1, mb.W1) || !slices.Equal(ma.B1, mb.B1) || !slices.Equal(ma.W2, mb.W2) || !slices.Equal(ma.B2, mb.B2) {
			return false, nil
		}
	}
	return true, nil
}
