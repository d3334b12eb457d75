//go:build !race

package main

// raceBuild reports whether the tests run under the race detector, which
// makes nod's own work many times slower.
const raceBuild = false
