// Package experiment runs the paper's experiments as lists of 'actor run'
// configurations over one benchmark, model and task set, and reports them:
// Table I (every registered method: ACToR and its baselines), Tables III–IV (ablations of the labelling
// rules and of the modules), Figure 4 (the sensitivity grid of the
// labelling thresholds), Table II (cost) and a question beyond the paper
// (is the probe a better trigger than plain next-token entropy at the same
// rate?). It drives the actor binary itself, so every sample is made by the
// same command a user would type, and relies on that command's resumption:
// rerunning an experiment repeats no sample and re-renders the report.
//
// One output folder holds any number of experiments: OUT/runs/NAME is one
// configuration's 'actor run' folder (predictions, traces, eval/), shared
// by every experiment that lists the same configuration; OUT/probes holds
// the probes the experiments train; OUT/EXPERIMENT holds that
// experiment's README.md, report.md and figures.
package experiment

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"actor/generate"
	"actor/pipeline"
	"actor/runrecord"
)

// Names lists the experiments.
var Names = []string{"table1", "ablations", "sensitivity", "cost", "trigger", "context"}

// Settings are what every configuration of an experiment shares.
type Settings struct {
	Benchmark, Data, Repos string
	// Model is the model name or file given to actor run, ModelFile its
	// file (for the README's SHA-256).
	Model, ModelFile string
	// Out is the results folder.
	Out string
	// N samples per task at Temperature, seeded by Seed.
	N           int
	Temperature float64
	Seed        uint64
	// Threads for each actor run (0: its default).
	Threads int
	// Tasks are the experiment's task ids in order; AllTasks the number in
	// the data (to say what was cut); Projects maps a task to its project
	// (for pass@1 by project; may be nil).
	Tasks    []string
	AllTasks int
	Projects map[string]string
	// Sources is each project's sources SHA-256 as retrieval reads them
	// (pipeline.SourcesHash), recorded in and checked against every run
	// folder: runs over another layout of a project (without its tests/,
	// say) retrieve other blocks. Empty when only rendering.
	Sources map[string]string
	// Step is how many tasks each configuration generates before the next
	// one takes its turn.
	Step int
	// RunArgs are extra flags for every actor run, BenchArgs for every
	// actor bench run, TrainArgs for every actor probe train.
	RunArgs, BenchArgs, TrainArgs []string
	// Probe is ACToR's probe file (the reference of every comparison).
	Probe string
	// Labels is the labels directory the ablation and grid probes are
	// trained from.
	Labels string
	// Entropies and Influences are the sensitivity grid's thresholds.
	Entropies, Influences []float64
	// EntropyTrigger fixes the entropy trigger's threshold; 0 sets it
	// where the trigger fires as often as the probe did.
	EntropyTrigger float64
	// Variants are further ACToR configurations Table I and Table II
	// compare (the cost levers, say), each run as the paper's exact ACToR
	// with its flags added.
	Variants []Variant
	// Only, when set, keeps these configurations (run names) of the
	// experiment and leaves the others out (said in the README).
	Only []string
	// Command is the experiment's own command line, for the README.
	Command string
}

// Variant is an ACToR configuration by name and its actor run flags
// (method flags: pipeline.Method.RegisterFlags).
type Variant struct {
	Name string
	Args []string
}

// ParseVariant reads NAME=FLAGS (flags space-separated), as --variant
// takes it: "stable-reuse=--layout stable --kv-reuse".
func ParseVariant(s string) (Variant, error) {
	name, flags, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, "/\\ ") || len(strings.Fields(flags)) == 0 {
		return Variant{}, fmt.Errorf("--variant %q: want NAME=FLAGS, e.g. stable-reuse=\"--layout stable --kv-reuse\"", s)
	}
	for _, f := range strings.Fields(flags) {
		if f == "--method" || f == "--probe" || f == "--name" || f == "--exact" {
			return Variant{}, fmt.Errorf("--variant %q: %s is the experiment's to set", s, f)
		}
	}
	if _, err := pipeline.DefaultMethod().ParseArgs(strings.Fields(flags)); err != nil {
		return Variant{}, fmt.Errorf("--variant %q: %v", s, err)
	}
	return Variant{Name: name, Args: strings.Fields(flags)}, nil
}

// Run is one configuration: an actor run folder OUT/runs/Name.
type Run struct {
	Name, Label string
	// Spec is the run's method; its flags for actor run are Spec.Args().
	Spec pipeline.Method
	// Group sorts rows into tables (the ablations' rules and modules).
	Group string
	// Equal marks the entropy-triggered run whose threshold is set from
	// the probe's flag rate in the reference run's traces.
	Equal bool
	// Cell is the run's place in the sensitivity grid.
	Cell *Cell
}

// Method is the run's --method.
func (r Run) Method() string { return r.Spec.Method }

// args are the run's method flags: Spec.Args(), with EqualRate for the
// entropy threshold of an Equal run until it is set.
func (r Run) args() []string {
	args := r.Spec.Args()
	if r.Equal && r.Spec.Entropy == 0 {
		args = append(args, "--entropy-trigger", EqualRate)
	}
	return args
}

// Cell is a sensitivity grid position.
type Cell struct{ Entropy, Influence float64 }

// ProbeJob is a probe the experiment trains into OUT/probes/Name.probe.
type ProbeJob struct {
	Name string
	// Args are its labelling-rule flags for actor probe train.
	Args []string
}

// Plan is an experiment's configurations and the probes they need.
type Plan struct {
	Experiment string
	Settings   Settings
	Probes     []ProbeJob
	Runs       []Run
	// Reference names the run the others are compared with.
	Reference string
}

// EqualRate stands for the entropy threshold in a plan until the reference
// run has set it.
const EqualRate = "EQUAL_RATE"

// reference is ACToR with the experiment's probe.
const reference = "actor"

// DefaultSamples is the experiments' default n (the paper's pass@5).
const DefaultSamples = 5

// batchFlag decodes a task's samples together (actor run --batch-samples).
const batchFlag = "--batch-samples"

// Lanes is how many samples of a task decode side by side
// (runrecord.Lanes, the one rule for batching): n with --batch-samples,
// else 1. Run folders record their lanes and are shared only at equal
// lanes, which keeps Table I's batched folders (made when four or more
// lanes rounded otherwise) from being paired with samples made at another
// n.
func (s Settings) Lanes() int {
	return runrecord.Lanes(s.N, slices.Contains(s.RunArgs, batchFlag))
}

// referenceName is the reference run's folder name: "actor", or "actor-nN"
// for batched samples at an n other than the default, whose samples
// differ from the default's (Table I's) sample for sample. (The run
// folders record their lanes, so any other mix is refused.)
func referenceName(s Settings) string {
	if slices.Contains(s.RunArgs, batchFlag) && s.N != DefaultSamples {
		return reference + "-n" + strconv.Itoa(s.N)
	}
	return reference
}

// New plans experiment name.
func New(name string, s Settings) (*Plan, error) {
	if s.N < 1 || s.Step < 1 || len(s.Tasks) == 0 {
		return nil, fmt.Errorf("experiment %s: want at least one task, one sample and a step of one task", name)
	}
	p := &Plan{Experiment: name, Settings: s, Reference: referenceName(s)}
	if len(s.Variants) > 0 && name != "table1" && name != "cost" {
		return nil, fmt.Errorf("experiment %s: --variant is for table1 and cost", name)
	}
	needsLabels := name == "ablations" || name == "sensitivity"
	if needsLabels && s.Labels == "" {
		return nil, fmt.Errorf("experiment %s: --labels DIR is required (the labels its probes are trained from)", name)
	}
	if name == "context" {
		p.Reference = contextReference
		p.Runs = contextRuns(s.Probe)
		return p, p.keepOnly()
	}
	if name != "sensitivity" && s.Probe == "" {
		return nil, fmt.Errorf("experiment %s: ACToR needs a probe (--probe FILE)", name)
	}
	actor := Run{Name: p.Reference, Label: "ACToR", Spec: exactACToR(s.Probe, "")}
	switch name {
	case "table1", "cost":
		for _, m := range generate.Methods() {
			if m.Name != generate.MethodACToR {
				p.Runs = append(p.Runs, Run{Name: m.Name, Label: m.Label, Spec: methodSpec(m.Name)})
			}
		}
		p.Runs = append(p.Runs, actor)
		for _, v := range s.Variants {
			name := "actor-" + v.Name
			spec, err := exactACToR(s.Probe, name).ParseArgs(v.Args)
			if err != nil {
				return nil, fmt.Errorf("--variant %s: %v", v.Name, err)
			}
			p.Runs = append(p.Runs, Run{Name: name, Label: "ACToR " + v.Name, Spec: spec})
		}
	case "ablations":
		p.Probes = append(p.Probes, ProbeJob{Name: "all-rules"})
		p.Runs = append(p.Runs, actor)
		for _, r := range []struct{ flag, label string }{{"mismatch", "w/o mismatch"}, {"uncertainty", "w/o uncertainty"},
			{"attention", "w/o attention influence"}} {
			job := ProbeJob{Name: "no-" + r.flag, Args: []string{"--no-" + r.flag}}
			p.Probes = append(p.Probes, job)
			p.Runs = append(p.Runs, Run{Name: "actor-no-" + r.flag, Label: "ACToR " + r.label, Group: "rules",
				Spec: exactACToR(p.ProbeFile(job.Name), "actor-no-"+r.flag)})
		}
		noInference, meanPool := exactACToR("", ""), exactACToR(s.Probe, "")
		noInference.NoInference, meanPool.MeanPool = true, true
		p.Runs = append(p.Runs,
			Run{Name: "actor-noinference", Label: "ACToR w/o critical-token inference", Group: "modules", Spec: noInference},
			Run{Name: "actor-meanpool", Label: "ACToR w/o weighted retriever (mean pooling)", Group: "modules", Spec: meanPool})
	case "sensitivity":
		if len(s.Entropies) == 0 || len(s.Influences) == 0 {
			return nil, fmt.Errorf("experiment sensitivity: the grid needs --entropies and --influences")
		}
		p.Reference = ""
		for _, e := range s.Entropies {
			for _, i := range s.Influences {
				name := "grid-e" + num(e) + "-i" + num(i)
				p.Probes = append(p.Probes, ProbeJob{Name: name, Args: []string{"--entropy", num(e), "--influence", num(i)}})
				p.Runs = append(p.Runs, Run{Name: "actor-" + name, Label: fmt.Sprintf("entropy ≥ %s, influence ≥ %s", num(e), num(i)),
					Cell: &Cell{e, i}, Spec: exactACToR(p.ProbeFile(name), "actor-"+name)})
			}
		}
	case "trigger":
		entropy := exactACToR("", "")
		entropy.Entropy = s.EntropyTrigger // 0: set from the reference's traces (EqualRate)
		p.Runs = append(p.Runs, actor, Run{Name: "actor-entropy", Label: "ACToR, entropy trigger", Equal: s.EntropyTrigger == 0,
			Spec: entropy})
	default:
		return nil, fmt.Errorf("no experiment %q (want one of %s)", name, strings.Join(Names, ", "))
	}
	return p, p.keepOnly()
}

// exactACToR is the paper's exact ACToR (--exact) with a probe file and a
// name in predictions ("" for none): the experiments' ACToR, whose levers
// are measured as variants that add them one at a time.
func exactACToR(probe, name string) pipeline.Method {
	m := pipeline.DefaultMethod()
	m.Method, m.Exact, m.Probe, m.Name = generate.MethodACToR, true, probe, name
	return m
}

// methodSpec is a method with its defaults, showing only what its
// switches say (--no-context): the experiments' configurations name every
// context source they show, so that their samples do not follow
// pipeline.DefaultContext.
func methodSpec(method string) pipeline.Method {
	m := pipeline.DefaultMethod()
	m.Method, m.NoContext = method, true
	return m
}

// keepOnly drops the configurations Settings.Only leaves out, and the
// probes no kept configuration reads. The reference stays: every
// comparison is against it.
func (p *Plan) keepOnly() error {
	only := p.Settings.Only
	if len(only) == 0 {
		return nil
	}
	var names []string
	for _, r := range p.Runs {
		names = append(names, r.Name)
	}
	for _, n := range only {
		if !slices.Contains(names, n) {
			return fmt.Errorf("experiment %s: --only %s: no such configuration (it has %s)", p.Experiment, n, strings.Join(names, ", "))
		}
	}
	if p.Reference != "" && !slices.Contains(only, p.Reference) {
		return fmt.Errorf("experiment %s: --only must keep %s, the configuration the others are compared with", p.Experiment, p.Reference)
	}
	p.Runs = slices.DeleteFunc(p.Runs, func(r Run) bool { return !slices.Contains(only, r.Name) })
	p.Probes = slices.DeleteFunc(p.Probes, func(j ProbeJob) bool {
		return !slices.ContainsFunc(p.Runs, func(r Run) bool {
			return r.Spec.Probe == p.ProbeFile(j.Name) || (j.Name == "all-rules" && r.Name == p.Reference)
		})
	})
	return nil
}

// num formats a threshold as the shortest exact decimal.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// RunDir is run name's actor run folder.
func (p *Plan) RunDir(name string) string { return filepath.Join(p.Settings.Out, "runs", name) }

// PredictionsFile is configuration name's predictions file.
func (p *Plan) PredictionsFile(name string) string {
	return filepath.Join(p.RunDir(name), "predictions.jsonl")
}

// ProbeFile is where probe job name is trained to.
func (p *Plan) ProbeFile(name string) string {
	return filepath.Join(p.Settings.Out, "probes", name+".probe")
}

// ReportDir is where the experiment's README, report and figures go.
func (p *Plan) ReportDir() string { return filepath.Join(p.Settings.Out, p.Experiment) }

// common are the actor run flags every configuration shares, except the
// task list and threads (which do not change a sample).
func (p *Plan) common() []string {
	s := p.Settings
	args := []string{"--benchmark", s.Benchmark, "--data", s.Data, "--repos", s.Repos, "--model", s.Model,
		"--temperature", num(s.Temperature), "--seed", strconv.FormatUint(s.Seed, 10), "--trace", "--no-eval"}
	return append(args, s.RunArgs...)
}

// RunArgs is the actor run command line (without "actor") generating
// run's samples of tasks.
func (p *Plan) RunArgs(r Run, tasks []string) []string {
	args := append([]string{"run"}, p.common()...)
	args = append(args, r.args()...)
	args = append(args, "-n", strconv.Itoa(p.Settings.N), "--out", p.RunDir(r.Name))
	if p.Settings.Threads > 0 {
		args = append(args, "--threads", strconv.Itoa(p.Settings.Threads))
	}
	return append(args, "--task", strings.Join(tasks, ","))
}

// EvalArgs is the actor bench run command line testing run's samples.
func (p *Plan) EvalArgs(r Run) []string {
	s := p.Settings
	args := []string{"bench", "run", "--benchmark", s.Benchmark, "--data", s.Data, "--repos", s.Repos,
		"--predictions", p.PredictionsFile(r.Name), "--out", filepath.Join(p.RunDir(r.Name), "eval"),
		"--task", strings.Join(s.Tasks, ",")}
	return append(args, s.BenchArgs...)
}

// TrainArgs is the actor probe train command line of job, writing to out.
func (p *Plan) TrainArgs(job ProbeJob, out string) []string {
	args := []string{"probe", "train", "--labels", p.Settings.Labels, "--out", out}
	args = append(args, job.Args...)
	return append(args, p.Settings.TrainArgs...)
}

// key is what must be equal for two experiments to share a run folder:
// every flag but the task list, -n, --threads and --batch-samples (the
// folder records Settings.Lanes instead: one lane is the same samples
// batched or not).
func (p *Plan) key(r Run) []string {
	key := slices.DeleteFunc(slices.Clone(p.common()), func(a string) bool { return a == batchFlag })
	return append(key, r.args()...)
}

// Commands lists the plan's command lines (without "actor"), in the order
// they run: the probes, the configurations over all tasks (generated Step
// tasks at a time, in turns), then the tests.
func (p *Plan) Commands() [][]string {
	var out [][]string
	for _, j := range p.Probes {
		out = append(out, p.TrainArgs(j, p.ProbeFile(j.Name)))
	}
	for _, r := range p.Runs {
		out = append(out, p.RunArgs(r, p.Settings.Tasks))
	}
	for _, r := range p.Runs {
		out = append(out, p.EvalArgs(r))
	}
	return out
}

// Quote joins args as a shell command line, quoting where needed.
func Quote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// contextReference is the context experiment's reference: RawPrompt with
// the target file's own code, what any editor's completion shows a model.
const contextReference = "rawprompt-file"

// contextRuns are the context experiment's configurations: RawPrompt with
// the target file's code and the definitions in scope in the authors'
// layout, the model's repository format and fill in the middle; RawRAG
// and RepoCoder in the authors' layout and in fill in the middle, without
// and with that context, and in the repository format over the file's
// code; ACToR (the paper's, exact) as published, and
// ACToR with its levers over the full context in the authors' layout and
// in fill in the middle, without and with name lookup, and in the model's
// repository format over the file's code (the best context measured with
// the indent guard), without and with name lookup; RawPrompt and
// ACToR with the name index (one line a name in scope) in place of the
// definitions.
//
// Every run but the exact ACToR says its context with --no-context
// (methodSpec) and switches.
func contextRuns(probe string) []Run {
	const fim, repo, file, sym, index = "--format fim", "--format repo", "--in-file", "--symbols", "--name-index"
	var runs []Run
	add := func(name, label, method string, flags ...string) {
		spec := methodSpec(method)
		if method == generate.MethodACToR {
			spec.Probe, spec.Name = probe, name
		}
		spec, err := spec.ParseArgs(strings.Fields(strings.Join(flags, " ")))
		if err != nil {
			panic("experiment: context run " + name + ": " + err.Error()) // the flags are constants above
		}
		runs = append(runs, Run{Name: name, Label: label, Spec: spec})
	}
	add("rawprompt", "RawPrompt", "rawprompt")
	add(contextReference, "RawPrompt + file", "rawprompt", file)
	add("rawprompt-file-sym", "RawPrompt + file + symbols", "rawprompt", file, sym)
	add("rawprompt-file-index", "RawPrompt + file + name index", "rawprompt", file, index)
	add("rawprompt-repo-file-index", "RawPrompt, repo format + file + name index", "rawprompt", repo, file, index)
	add("rawprompt-repo-file", "RawPrompt, repo format + file", "rawprompt", repo, file)
	add("rawprompt-repo-file-sym", "RawPrompt, repo format + file + symbols", "rawprompt", repo, file, sym)
	add("rawprompt-fim-file", "RawPrompt, FIM + file", "rawprompt", fim, file)
	add("rawprompt-fim-file-sym", "RawPrompt, FIM + file + symbols", "rawprompt", fim, file, sym)
	for _, m := range []struct{ name, label string }{{"rawrag", "RawRAG"}, {"repocoder", "RepoCoder"}} {
		add(m.name, m.label, m.name)
		add(m.name+"-file-sym", m.label+" + file + symbols", m.name, file, sym)
		add(m.name+"-repo-file", m.label+", repo format + file", m.name, repo, file)
		add(m.name+"-fim", m.label+", FIM", m.name, fim)
		add(m.name+"-fim-file", m.label+", FIM + file", m.name, fim, file)
		add(m.name+"-fim-file-sym", m.label+", FIM + file + symbols", m.name, fim, file, sym)
	}
	runs = append(runs, Run{Name: "actor-exact", Label: "ACToR (the paper's, --exact)", Spec: exactACToR(probe, "actor-exact")})
	add("actor-file-sym", "ACToR + file + symbols", "actor", "--format authors", file, sym, "--name-lookup off")
	add("actor-file-sym-lookup", "ACToR + file + symbols + name lookup", "actor", "--format authors", file, sym, "--name-lookup add")
	add("actor-file-index-lookup", "ACToR + file + name index + name lookup", "actor", "--format authors", file, index, "--name-lookup add")
	add("actor-repo-file", "ACToR, repo format + file", "actor", repo, file, "--name-lookup off")
	add("actor-repo-file-lookup", "ACToR, repo format + file + name lookup", "actor", repo, file, "--name-lookup add")
	add("actor-fim-file-sym", "ACToR, FIM + file + symbols", "actor", fim, file, sym, "--name-lookup off")
	add("actor-fim-file-sym-lookup", "ACToR, FIM + file + symbols + name lookup", "actor", fim, file, sym, "--name-lookup add")
	add("actor-fim-file-sym-lookup-only", "ACToR, FIM + file + symbols + name lookup only", "actor", fim, file, sym, "--name-lookup only")
	return runs
}
