//go:build race

package classify

// raceEnabled: slow reference evaluations skip themselves under -race.
const raceEnabled = true
