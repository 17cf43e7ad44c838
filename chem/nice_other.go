//go:build !linux

package chem

// niceThread does nothing where threads have no nice value of their own.
func niceThread(int) error { return nil }
