// Package echomethod is a throw-away generation method for tests: it
// shows that a method registered with generate.Register, and nothing else,
// is offered by the CLI, the server and the experiments. It registers
// itself only when ACTOR_TEST_ECHO_METHOD is 1, so importing it changes
// nothing otherwise.
package echomethod

import (
	"context"
	"os"

	"actor/generate"
	"actor/retrieve"
)

// Body is what the method writes for every target.
const Body = "    return None  # echo\n"

// Name and Label are the method's name and table label.
const Name, Label = "echo", "Echo"

type echo struct{}

func (echo) Method() string  { return Name }
func (echo) Notes() []string { return []string{"a test method"} }
func (echo) Generate(_ context.Context, t retrieve.Target, sample int, _ generate.Observer) (*generate.Sample, error) {
	return &generate.Sample{Code: Body, Prompt: t.Prompt, Trace: generate.Trace{Task: t.ID, Sample: sample, Method: Name}}, nil
}

func init() {
	if os.Getenv("ACTOR_TEST_ECHO_METHOD") == "1" {
		generate.Register(generate.MethodInfo{Name: Name, Label: Label, Help: "writes return None (a test method)", Plain: true,
			New: func(generate.Options) (generate.Generator, error) { return echo{}, nil }})
	}
}
