//go:build !race

package handlers

// raceBuild reports a -race build (see hostile_race_test.go).
const raceBuild = false
