package generate

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/afftrack/afftrack"
)

// bannerSizes are the sizes banners are made in: the standard ones, most
// often the common few, and now and then an odd size that has no name.
var bannerSizes = newWeighted(
	[][2]int64{{468, 60}, {728, 90}, {300, 250}, {160, 600}, {320, 50}, {300, 600}, {970, 250}, {336, 280},
		{234, 60}, {120, 600}, {250, 250}, {125, 125}, {970, 90}, {180, 150}, {120, 240}, {200, 200}, {300, 50},
		{400, 400}, {640, 100}},
	[]int{14, 14, 18, 8, 8, 6, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 3, 2, 2})

// bannerRef is what a transaction that came through a banner names.
type bannerRef struct {
	id   int64
	name string
}

// setupBanners gives each merchant its banners: about 25 for the largest,
// one or two for the smallest. Ids run in merchant id order.
func (g *Generator) setupBanners(r *rand.Rand) {
	g.bannerRand = r
	id := int64(0)
	for i := range g.merchants {
		m := &g.merchants[i]
		n := 1 + int(24/math.Sqrt(float64(m.rank))) + r.IntN(2)
		m.banners = make([]bannerRef, n)
		for k := range m.banners {
			id++
			m.banners[k] = bannerRef{id: id, name: m.name + " " + bannerGroups[r.IntN(len(bannerGroups))] + " " + strconv.Itoa(k+1)}
		}
	}
}

// emitBanners walks the merchants by id (cursor[0]) and each one's
// banners (cursor[1]).
func (g *Generator) emitBanners(limit int) (int, bool) {
	r := g.bannerRand
	for g.cursor[0] < len(g.merchants) && len(g.c.d.Banners) < limit {
		m := &g.merchants[g.cursor[0]]
		ref := m.banners[g.cursor[1]]
		size := bannerSizes.pick(r)
		created := g.cfg.Start.AddDate(0, 0, -1-r.IntN(400)).Add(timeOfDay(r))
		modified := created
		if r.IntN(3) == 0 {
			modified = created.AddDate(0, 0, r.IntN(60)).Add(timeOfDay(r))
		}
		idText := strconv.FormatInt(ref.id, 10)
		g.c.d.Banners = append(g.c.d.Banners, afftrack.Banner{
			ID: ref.id, MerchantID: m.id, DateCreated: created, DateModified: modified,
			GroupName: bannerGroups[r.IntN(len(bannerGroups))],
			Name:      ref.name,
			TargetURL: "https://www." + m.slug + ".example.com/landing/" + idText,
			Width:     size[0], Height: size[1],
			ImageURL: "https://cdn.example.com/banners/" + idText + ".png",
			AltText:  "Shop " + m.name,
		})
		if g.cursor[1]++; g.cursor[1] == len(m.banners) {
			g.cursor = [2]int{g.cursor[0] + 1, 0}
		}
	}
	g.summary.Banners += len(g.c.d.Banners)
	return len(g.c.d.Banners), g.cursor[0] == len(g.merchants)
}
