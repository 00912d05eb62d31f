package recall

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"actor/dataset"
	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
)

// hfEncoder runs testdata/hf_encoder.py (transformers) as a retrieve.Encoder.
type hfEncoder struct {
	dir string
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

func startHF(dir string) (*hfEncoder, error) {
	cmd := exec.Command("python3", "testdata/hf_encoder.py", dir, "256")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &hfEncoder{dir: dir, in: in, out: bufio.NewReaderSize(out, 1<<20), cmd: cmd}, nil
}

func (e *hfEncoder) ID() string { return "hf:" + e.dir }
func (e *hfEncoder) Dim() int   { return 384 }
func (e *hfEncoder) Encode(texts []string) (retrieve.TokenBatch, error) {
	line, err := json.Marshal(texts)
	if err != nil {
		return retrieve.TokenBatch{}, err
	}
	if _, err := e.in.Write(append(line, '\n')); err != nil {
		return retrieve.TokenBatch{}, err
	}
	var head [3]int32
	if err := binary.Read(e.out, binary.LittleEndian, &head); err != nil {
		return retrieve.TokenBatch{}, fmt.Errorf("encoder process: %w", err)
	}
	lengths := make([]int32, head[0])
	if err := binary.Read(e.out, binary.LittleEndian, lengths); err != nil {
		return retrieve.TokenBatch{}, err
	}
	data := make([]float32, int(head[0])*int(head[1])*int(head[2]))
	if err := binary.Read(e.out, binary.LittleEndian, data); err != nil {
		return retrieve.TokenBatch{}, err
	}
	b := retrieve.TokenBatch{Data: data, Seq: int(head[1]), Dim: int(head[2])}
	for _, l := range lengths {
		b.Lengths = append(b.Lengths, int(l))
	}
	return b, nil
}

func (e *hfEncoder) close() { e.in.Close(); e.cmd.Wait() }

// BenchmarkRepoExecDevDense measures dense recall on the RepoExec dev
// tasks with all-minilm-l6-v2 run by transformers (candidates mean-pooled;
// queries mean-pooled or position-weighted): a report, run explicitly,
//
//	go test ./retrieve/recall -run XXX -bench DevDense -benchtime 1x
//
// It needs python3 with torch and transformers and the model folder that
// `actor models pull all-minilm-l6-v2` leaves ($ACTOR_HOME/models).
func BenchmarkRepoExecDevDense(b *testing.B) {
	dev, repos := testsupport.RepoExecDev(b)
	tasksFile := filepath.Join(dev, "tasks.jsonl")
	dir := testsupport.Model(b, "all-minilm-l6-v2")
	enc, err := startHF(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer enc.close()
	set, err := dataset.Load(dataset.RepoExec, tasksFile)
	if err != nil {
		b.Fatal(err)
	}
	tasks := set.Tasks
	walk := index.WalkOptions{Include: []string{"*.py"}}
	type corpus struct {
		root  string
		repo  *Repo
		cands []index.Candidate
		m     *retrieve.Matrix
	}
	corpora := map[string]*corpus{}
	cand := retrieve.Embedder{Encoder: enc, Pooling: retrieve.MeanPooling}
	for b.Loop() {
		for _, tk := range tasks {
			if corpora[tk.Project] != nil {
				continue
			}
			c := &corpus{root: filepath.Join(repos, tk.Project)}
			if c.repo, err = LoadRepo(c.root, walk); err != nil {
				b.Fatal(err)
			}
			index.Walk(c.root, walk, func(f index.File) error {
				c.cands = append(c.cands, index.DefaultSplitter.Split(f.Path, string(f.Data))...)
				return nil
			})
			c.cands = index.Dedup(c.cands)
			var flat []float32
			for i := 0; i < len(c.cands); i += 32 {
				var texts []string
				for _, x := range c.cands[i:min(i+32, len(c.cands))] {
					texts = append(texts, x.Text)
				}
				vecs, err := cand.Embed(texts)
				if err != nil {
					b.Fatal(err)
				}
				for _, v := range vecs {
					flat = append(flat, v...)
				}
			}
			if c.m, err = retrieve.NewMatrix(flat, cand.Dim()); err != nil {
				b.Fatal(err)
			}
			corpora[tk.Project] = c
		}
	}
	for _, pool := range []retrieve.Pooling{retrieve.MeanPooling, retrieve.WeightedPooling(0.4), retrieve.WeightedPooling(0.2), retrieve.WeightedPooling(0.1)} {
		var scores []Score
		for i, tk := range tasks {
			c := corpora[tk.Project]
			dense := retrieve.Dense{Query: retrieve.Embedder{Encoder: enc, Pooling: pool}, Matrix: c.m}
			p := Project{Root: c.root, Repo: c.repo, Retriever: retrieve.New(c.cands, dense)}
			ts, err := ScoreTask(p, &tasks[i], 10)
			if err != nil {
				b.Fatal(err)
			}
			scores = append(scores, ts.Score)
		}
		s := Summarize(scores)
		b.Logf("MiniLM dense, query pooling %s: %d tasks, %d with gold; hit@10 %.3f, name recall@10 %.3f",
			pool, s.Tasks, s.Counted, s.Hit, s.Recall)
		if math.IsNaN(s.Hit) {
			b.Fatal("NaN")
		}
	}
}
