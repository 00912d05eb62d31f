// Package doclint holds the checks that keep the repository's documents
// trustworthy for a newcomer (its test): no path of one machine, no talk
// of who ran what or of issue numbers, no citation of a file the
// repository lacks, a README short enough to read as a guide, and no large
// file added to git.
package doclint
