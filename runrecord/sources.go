package runrecord

import (
	"fmt"
	"maps"
	"slices"
)

// Moved is a project whose sources hash otherwise now than in the record.
type Moved struct {
	Project, Recorded, Now string
}

// String is "project SHA-256 recorded, now now", hashes cut to 12 digits.
func (m Moved) String() string {
	return fmt.Sprintf("%s SHA-256 %.12s, now %.12s", m.Project, m.Recorded, m.Now)
}

// MergeSources is the one rule by which a record of the sources a run
// retrieved from (per project, the SHA-256 of the files its corpus is read
// from: pipeline.SourcesHash) meets a new command's sources (project →
// SHA-256): projects both know must hash alike, projects new to the
// record are added, projects the command does not run are kept. run.json
// (Claim), actor experiment's experiment.json and a queue worker's check
// all apply it. merged is what the record holds after the command:
// now's hashes, and the record's for the projects now does not name.
// added lists the projects now names that the record lacks, moved those
// both name with different hashes (in project order); a command with moved
// projects must be refused.
func MergeSources(recorded, now map[string]string) (merged map[string]string, added []string, moved []Moved) {
	merged = maps.Clone(recorded)
	if merged == nil {
		merged = map[string]string{}
	}
	for _, project := range slices.Sorted(maps.Keys(now)) {
		h, ok := recorded[project]
		switch {
		case !ok:
			added = append(added, project)
		case h != now[project]:
			moved = append(moved, Moved{Project: project, Recorded: h, Now: now[project]})
		}
		merged[project] = now[project]
	}
	if len(merged) == 0 {
		merged = nil
	}
	return merged, added, moved
}
