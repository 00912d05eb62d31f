package main

import "actor/engine"

// keepQ5_0 is the --keep-q5_0 flag of every command that loads a
// generator model.
var keepQ5_0 bool

// engineOptions fills o with the root flags that concern the engine.
func engineOptions(o engine.Options) engine.Options {
	o.KeepQ5_0 = keepQ5_0
	return o
}

func init() {
	rootCmd.PersistentFlags().BoolVar(&keepQ5_0, "keep-q5_0", false,
		"keep a model's Q5_0 matrices as stored instead of their exact Q8_0 copies (same output; prefill about 1.4x slower, 12 fewer bytes per 32 weights)")
}
