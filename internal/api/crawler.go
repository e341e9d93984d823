package api

import (
	"sync"

	"github.com/x-way/crawlerdetect"
)

// Bounds of the crawler check.
const (
	// maxCachedAgents bounds the verdicts remembered; a network's clicks
	// come from a few thousand distinct browsers at most.
	maxCachedAgents = 10_000
	// maxAgentLength is the longest User-Agent checked: browsers send a
	// few hundred bytes, and the check's regular expressions cost time in
	// proportion, so a longer one is taken for a crawler unchecked.
	maxAgentLength = 1024
)

// crawlers remembers crawlerdetect's verdict per User-Agent. The check
// runs two large regular expressions, about 100 µs for a browser's
// User-Agent (two thirds of a click's time, docs/performance.md), while
// the same few User-Agents make most clicks.
type crawlers struct {
	mu       sync.Mutex
	verdicts map[string]bool
}

// isCrawler reports whether userAgent is a known crawler's.
func (c *crawlers) isCrawler(userAgent string) bool {
	if len(userAgent) > maxAgentLength {
		return true
	}
	c.mu.Lock()
	v, ok := c.verdicts[userAgent]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = crawlerdetect.IsCrawler(userAgent)
	c.mu.Lock()
	if c.verdicts == nil || len(c.verdicts) >= maxCachedAgents {
		// Starting over costs a check per User-Agent again; it never
		// costs more than no cache at all.
		c.verdicts = make(map[string]bool)
	}
	c.verdicts[userAgent] = v
	c.mu.Unlock()
	return v
}
