package ui

import (
	"fmt"
	"testing"
	"time"
)

// TestStashBounded: however many states are put, by however many users,
// the stash holds at most maxStashPerUser per user and maxStashTotal in
// all, and the ones evicted are the oldest.
func TestStashBounded(t *testing.T) {
	var s stash
	now := time.Now()
	for i := range 3000 {
		user := fmt.Sprintf("u%d", i%300)
		s.put(fmt.Sprintf("t%d", i), stashed{user: user, expires: now.Add(time.Minute)}, now)
	}
	if n := s.len(); n != maxStashTotal {
		t.Errorf("%d states kept, want the bound %d", n, maxStashTotal)
	}
	perUser := map[string]int{}
	for tok, e := range s.m {
		perUser[e.user]++
		var i int
		fmt.Sscanf(tok, "t%d", &i)
		if i < 3000-maxStashTotal {
			t.Errorf("state %s kept while newer ones were evicted", tok)
		}
	}
	for u, n := range perUser {
		if n > maxStashPerUser {
			t.Errorf("user %s has %d states, want at most %d", u, n, maxStashPerUser)
		}
	}
	// One user alone: only their newest maxStashPerUser.
	var one stash
	for i := range 50 {
		one.put(fmt.Sprintf("t%d", i), stashed{user: "solo", expires: now.Add(time.Minute)}, now)
	}
	if n := one.len(); n != maxStashPerUser {
		t.Errorf("one user kept %d states, want %d", n, maxStashPerUser)
	}
	if _, ok := one.m["t49"]; !ok {
		t.Error("the newest state was evicted")
	}
	if _, ok := one.m["t0"]; ok {
		t.Error("the oldest state was kept")
	}
	// Expired states go first.
	one.put("late", stashed{user: "other", expires: now.Add(time.Minute)}, now.Add(2*time.Minute))
	if n := one.len(); n != 1 {
		t.Errorf("%d states after every other one expired, want 1", n)
	}
}
