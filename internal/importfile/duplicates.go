package importfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

// duplicates remembers the ids (and keys) of the records read so far, and
// where each was first (seen): about 15 bytes an id, 23 a click's id or a
// membership's pair, 15 a currency's day.
type duplicates struct {
	ids         [numCollections]seen[int64]
	memberships seen[[2]int64]
	rates       seen[rateKey]
	clicks      seen[[16]byte] // a click id's 128 bits
	secrets     map[[sha256.Size]byte]keyAt
	groupNames  map[groupName]int32
}

func newDuplicates() duplicates {
	return duplicates{secrets: map[[sha256.Size]byte]keyAt{}, groupNames: map[groupName]int32{}}
}

// id checks that record r, of collection i, does not give an Id an
// earlier record of i gave.
func (d *duplicates) id(r *record, i int, id int64) {
	if r.err != nil {
		return
	}
	if first, dup := d.ids[i].add(id); dup {
		r.fail("Id", "%d is also %s[%d].Id", id, collections[i], first)
	}
}

func (d *duplicates) membership(r *record, ms afftrack.Membership) {
	if r.err != nil {
		return
	}
	k := [2]int64{ms.AffiliateID, ms.MerchantID}
	if first, dup := d.memberships.add(k); dup {
		r.fail("AffiliateId", "affiliate %d and merchant %d are also Memberships[%d]", k[0], k[1], first)
	}
}

// rateKey is a currency and a day, which a rate is for.
type rateKey struct {
	code [3]byte
	day  int32 // since 1970-01-01
}

// rate checks that a currency and day are not also an earlier record's.
func (d *duplicates) rate(r *record, cr afftrack.CurrencyRate) {
	if r.err != nil {
		return
	}
	if first, dup := d.rates.add(rateKeyOf(cr)); dup {
		r.fail("Date", "%s on %s is also CurrencyRates[%d]", cr.Code, cr.Date.Format(time.DateOnly), first)
	}
}

// rateKeyOf returns the key of a rate parseCurrencyRate read: its Code
// is three letters, its Date a day.
func rateKeyOf(cr afftrack.CurrencyRate) rateKey {
	var k rateKey
	copy(k.code[:], cr.Code)
	k.day = int32(cr.Date.Unix() / 86400)
	return k
}

// click checks that a click id is not also an earlier click's.
func (d *duplicates) click(r *record, id string) {
	if r.err != nil {
		return
	}
	var k [16]byte
	hex.Decode(k[:], []byte(id)) //nolint:errcheck // parseClick checked the form
	if first, dup := d.clicks.add(k); dup {
		r.fail("ClickId", "%s is also Clicks[%d].ClickId", id, first)
	}
}

// keyAt is where a key was first: ApiKeys[key] of record of collection.
type keyAt struct {
	collection uint8
	record     int32
	key        int32
}

// keys checks that no key of record r (at index at of collection i) is
// also an earlier one's. A key is remembered by its SHA-256, as the store
// knows it (afftrack.HashKey), not by its secret of up to 256 bytes.
func (d *duplicates) keys(r *record, i, at int, keys []string) {
	for j, k := range keys {
		if r.err != nil {
			return
		}
		sum := sha256.Sum256([]byte(k))
		if first, dup := d.secrets[sum]; dup {
			r.fail(fmt.Sprintf("ApiKeys[%d]", j), "the key is also %s[%d].ApiKeys[%d]",
				collections[first.collection], first.record, first.key)
			return
		}
		d.secrets[sum] = keyAt{uint8(i), int32(at), int32(j)}
	}
}
