//go:build race

package handlers

// raceBuild: the race detector's shadow memory and slowdown make the
// hostile suite's RSS bounds meaningless and its time bounds too tight; it
// checks every other property and stretches the times (hostile_test.go).
const raceBuild = true
