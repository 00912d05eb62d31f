//go:build !unix

package models

import "context"

// lockPull does not lock where flock is missing: concurrent pulls of one
// model into the same cache are then the user's to avoid.
func lockPull(context.Context, string, func()) (func(), error) {
	return func() {}, nil
}
