package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"actor/bench/results"
	"actor/internal/atomicfile"
)

// Exec runs the actor binary with args (a subcommand and its flags).
type Exec func(ctx context.Context, args []string) error

// Execute trains the missing probes, generates every configuration's
// missing samples Step tasks at a time in turns (so that timings share the
// machine's load), sets the entropy trigger's threshold once the reference
// run is complete, and tests the samples not yet tested. Work already done
// is skipped, so an interrupted experiment continues where it stopped.
func (p *Plan) Execute(ctx context.Context, run Exec, log io.Writer) error {
	for _, d := range []string{filepath.Join(p.Settings.Out, "runs"), filepath.Join(p.Settings.Out, "probes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := p.trainProbes(ctx, run, log); err != nil {
		return err
	}
	var first, later []Run
	for _, r := range p.Runs {
		if r.Equal {
			later = append(later, r)
			continue
		}
		first = append(first, r)
		if err := p.claim(r); err != nil {
			return err
		}
	}
	if err := p.generate(ctx, run, log, first); err != nil {
		return err
	}
	for i := range later {
		if err := p.setEqualRate(&later[i], log); err != nil {
			return err
		}
		if err := p.claim(later[i]); err != nil {
			return err
		}
	}
	if err := p.generate(ctx, run, log, later); err != nil {
		return err
	}
	for _, r := range p.Runs {
		if err := p.evaluate(ctx, run, log, r); err != nil {
			return err
		}
	}
	return nil
}

// trainProbes trains every probe whose file is missing (to a temporary
// name first, so that an interrupted training leaves no probe behind).
func (p *Plan) trainProbes(ctx context.Context, run Exec, log io.Writer) error {
	for _, j := range p.Probes {
		file := p.ProbeFile(j.Name)
		if _, err := os.Stat(file); err == nil {
			continue
		}
		tmp := filepath.Join(filepath.Dir(file), ".partial-"+filepath.Base(file))
		fmt.Fprintf(log, "experiment: training probe %s\n", j.Name)
		if err := run(ctx, p.TrainArgs(j, tmp)); err != nil {
			return fmt.Errorf("probe %s: %w", j.Name, err)
		}
		if err := os.Rename(tmp, file); err != nil {
			return err
		}
	}
	return nil
}

// generate runs the configurations in turns, each generating its missing
// samples of the next Step tasks.
func (p *Plan) generate(ctx context.Context, run Exec, log io.Writer, runs []Run) error {
	tasks := p.Settings.Tasks
	for end := min(p.Settings.Step, len(tasks)); ; end = min(end+p.Settings.Step, len(tasks)) {
		for _, r := range runs {
			missing, err := p.missing(r, tasks[:end])
			if err != nil {
				return err
			}
			if len(missing) == 0 {
				continue
			}
			fmt.Fprintf(log, "experiment: %s: %d of the first %d tasks to generate\n", r.Name, len(missing), end)
			if err := run(ctx, p.RunArgs(r, missing)); err != nil {
				return fmt.Errorf("%s: %w", r.Name, err)
			}
		}
		if end == len(tasks) {
			break
		}
	}
	for _, r := range runs {
		fmt.Fprintf(log, "experiment: %s: all %d tasks × %d samples generated\n", r.Name, len(tasks), p.Settings.N)
	}
	return nil
}

// missing lists the tasks lacking one of the N samples in run's
// predictions.
func (p *Plan) missing(r Run, tasks []string) ([]string, error) {
	have, err := predicted(p.PredictionsFile(r.Name))
	if err != nil {
		return nil, err
	}
	return p.lacking(have, tasks), nil
}

// lacking lists the tasks with a sample below N not in have.
func (p *Plan) lacking(have map[sampleKey]bool, tasks []string) []string {
	var out []string
	for _, t := range tasks {
		for s := range p.Settings.N {
			if !have[sampleKey{t, s}] {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// evaluate tests the run's samples unless every one has a result.
func (p *Plan) evaluate(ctx context.Context, run Exec, log io.Writer, r Run) error {
	have, err := tested(filepath.Join(p.RunDir(r.Name), "eval", results.SamplesFile))
	if err != nil {
		return err
	}
	if len(p.lacking(have, p.Settings.Tasks)) == 0 {
		fmt.Fprintf(log, "experiment: %s: every sample tested\n", r.Name)
		return nil
	}
	fmt.Fprintf(log, "experiment: %s: testing\n", r.Name)
	reuse, err := p.testedElsewhere(r)
	if err != nil {
		return err
	}
	if err := run(ctx, append(p.EvalArgs(r), reuse...)); err != nil {
		return fmt.Errorf("%s: %w", r.Name, err)
	}
	// The summary is read by people: it names the folders as the README
	// does; the record keeps them as paths.
	eval := filepath.Join(p.RunDir(r.Name), "eval")
	if err := portableFile(filepath.Join(eval, results.SummaryMD), p.placeholders); err != nil {
		return err
	}
	return portableFile(filepath.Join(eval, results.MetaFile), nil)
}

// testedElsewhere is the --reuse flags naming every other run folder of
// OUT with test results, so that a sample whose code another
// configuration already had is not tested again (see bench.Config.Reuse).
func (p *Plan) testedElsewhere(r Run) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(p.Settings.Out, "runs", "*", "eval", results.MetaFile))
	if err != nil {
		return nil, err
	}
	var args []string
	for _, d := range dirs {
		if eval := filepath.Dir(d); eval != filepath.Join(p.RunDir(r.Name), "eval") {
			args = append(args, "--reuse", eval)
		}
	}
	return args, nil
}

// portableFile rewrites a text file of a run folder with its paths under
// the working folder made relative (see portable), after names when it is
// not nil, so that a results folder committed with the code names no path
// of the machine it ran on.
func portableFile(path string, names func([]byte) []byte) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if names != nil {
		data = names(data)
	}
	return atomicfile.Write(path, portable(data))
}

// setEqualRate sets the entropy threshold of an Equal run that has none
// (in the plan's Runs too, so that the report shows it): the one its
// folder recorded, or one set from the reference run's traces.
func (p *Plan) setEqualRate(r *Run, log io.Writer) error {
	if !r.Equal || r.Spec.Entropy > 0 {
		return nil
	}
	thr, err := p.recordedEntropy(*r)
	if err != nil || thr > 0 {
		p.setEntropy(r, thr)
		return err
	}
	ref, err := p.readTraces(p.Reference)
	if err != nil {
		return err
	}
	if thr, err = EqualRateThreshold(ref.Entropies, ref.FlagRate()); err != nil {
		return fmt.Errorf("%s: %w", p.RunDir(p.Reference), err)
	}
	p.setEntropy(r, thr)
	fmt.Fprintf(log, "experiment: %s: entropy threshold %s nats fires on %.2f %% of the reference's judged tokens, as its probe did\n",
		r.Name, num(thr), 100*ref.FlagRate())
	return nil
}

// setEntropy sets r's entropy threshold, and that of the plan's run of
// the same name.
func (p *Plan) setEntropy(r *Run, thr float64) {
	r.Spec.Entropy = thr
	for i := range p.Runs {
		if p.Runs[i].Name == r.Name {
			p.Runs[i].Spec.Entropy = thr
		}
	}
}

// recordedEntropy is the entropy threshold r's folder recorded in its
// key, 0 when it records none.
func (p *Plan) recordedEntropy(r Run) (float64, error) {
	file := filepath.Join(p.RunDir(r.Name), configFile)
	data, err := os.ReadFile(file)
	var have runConfig
	if err != nil || json.Unmarshal(data, &have) != nil {
		return 0, nil // no record yet; a damaged one is reported by claim
	}
	j := slices.Index(have.Key, "--entropy-trigger")
	if j < 0 || j+1 >= len(have.Key) {
		return 0, nil
	}
	thr, err := strconv.ParseFloat(have.Key[j+1], 64)
	if err != nil || thr <= 0 {
		return 0, fmt.Errorf("%s: --entropy-trigger %q: want a threshold above 0", file, have.Key[j+1])
	}
	return thr, nil
}
