package api

import (
	"strconv"
	"strings"
	"testing"
)

func TestCrawlers(t *testing.T) {
	var c crawlers
	for _, tc := range []struct {
		name, agent string
		want        bool
	}{
		{"a browser is not a crawler", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36", false},
		{"Googlebot is a crawler", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", true},
		{"curl counts as a crawler", "curl/8.5.0", true},
		{"an agent too long to check is taken for a crawler", "Mozilla/5.0 " + strings.Repeat("x", maxAgentLength), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 2 { // the second answer comes from the cache
				if got := c.isCrawler(tc.agent); got != tc.want {
					t.Errorf("isCrawler = %v, want %v", got, tc.want)
				}
			}
		})
	}
	t.Run("the cache holds at most maxCachedAgents verdicts", func(t *testing.T) {
		var c crawlers
		for i := range maxCachedAgents + 10 {
			c.isCrawler("agent/" + strconv.Itoa(i))
		}
		if n := len(c.verdicts); n > maxCachedAgents {
			t.Errorf("%d verdicts held, want at most %d", n, maxCachedAgents)
		}
	})
}
