// Package sources holds the one rule by which a run's record of the
// sources it retrieved from (per project, the SHA-256 of the files the
// corpus is read from: pipeline.SourcesHash) meets a new command's: the
// projects both know must hash alike, projects new to the record are
// added, projects the command does not run are kept. actor run's run.json,
// actor experiment's experiment.json and a queue worker's check all apply
// it, so that samples retrieved from other files (a project laid out
// without its tests/, say) are never mixed under one name.
package sources

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

// Merge compares the sources hashes a command has now (project → SHA-256)
// with a record's. merged is what the record holds after the command:
// now's hashes, and the record's for the projects now does not name.
// added lists the projects now names that the record lacks, moved those
// both name with different hashes (in project order); a command with moved
// projects must be refused.
func Merge(recorded, now map[string]string) (merged map[string]string, added []string, moved []Moved) {
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
