package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/afftrack/afftrack"
)

// The import's banner groups and banners (v1-surface.md section 7). A
// banner names its group by BannerGroupId or GroupName; a GroupName that
// names none of its merchant's groups makes one. banners.group_name stays
// a copy of the group's name, which the affiliates' banner list reads.

const (
	// A group's DateCreated left out keeps a stored group's ($8: the given
	// value or NULL).
	upsertBannerGroup = `INSERT INTO banner_groups (id, merchant_id, name, target_url, date_created, date_modified,
		expiry_date)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT (id) DO UPDATE SET merchant_id = excluded.merchant_id, name = excluded.name,
		target_url = excluded.target_url, date_created = COALESCE(CAST($8 AS BIGINT), banner_groups.date_created),
		date_modified = excluded.date_modified, expiry_date = excluded.expiry_date`
	insertBannerGroup = `INSERT INTO banner_groups (id, merchant_id, name, target_url, date_created, date_modified,
		expiry_date)
	VALUES ($1, $2, $3, $4, $5, $6, NULL)`
	selectBannerGroup       = `SELECT merchant_id, name, target_url FROM banner_groups WHERE id = $1`
	selectBannerGroupByName = `SELECT id, target_url FROM banner_groups WHERE merchant_id = $1 AND name = $2`
	renameGroupBanners      = `UPDATE banners SET group_name = $1 WHERE group_id = $2 AND group_name <> $1`
	countOtherBanners       = `SELECT COUNT(*) FROM banners WHERE group_id = $1 AND merchant_id <> $2`
	upsertBanner            = `INSERT INTO banners (id, merchant_id, date_created, date_modified, group_name, name,
		target_url, width, height, image_url, alt_text, group_id, default_for_size)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
	ON CONFLICT (id) DO UPDATE SET merchant_id = excluded.merchant_id, date_created = excluded.date_created,
		date_modified = excluded.date_modified, group_name = excluded.group_name, name = excluded.name,
		target_url = excluded.target_url, width = excluded.width, height = excluded.height,
		image_url = excluded.image_url, alt_text = excluded.alt_text, group_id = excluded.group_id,
		default_for_size = excluded.default_for_size`
)

// bannerGroup is what an import knows of a stored group.
type bannerGroup struct {
	merchantID int64
	name       string
	targetURL  string
}

// groupKey is a group's name among its merchant's.
type groupKey struct {
	merchantID int64
	name       string
}

// bannerGroup returns group id, or nil if it is not stored.
func (im *importer) bannerGroup(id int64) (*bannerGroup, error) {
	if g, known := im.groups[id]; known {
		return g, nil
	}
	st, err := im.stmt(selectBannerGroup)
	if err != nil {
		return nil, err
	}
	g := &bannerGroup{}
	err = st.QueryRowContext(im.ctx, id).Scan(&g.merchantID, &g.name, &g.targetURL)
	if errors.Is(err, sql.ErrNoRows) {
		g = nil
	} else if err != nil {
		return nil, err
	}
	im.groups[id] = g
	if g != nil {
		im.groupNames[groupKey{g.merchantID, g.name}] = id
	}
	return g, nil
}

// groupNamed returns the id of the merchant's group of the name, 0 if it
// has none.
func (im *importer) groupNamed(merchantID int64, name string) (int64, error) {
	k := groupKey{merchantID, name}
	if id, known := im.groupNames[k]; known {
		return id, nil
	}
	st, err := im.stmt(selectBannerGroupByName)
	if err != nil {
		return 0, err
	}
	g := &bannerGroup{merchantID: merchantID, name: name}
	var id int64
	err = st.QueryRowContext(im.ctx, merchantID, name).Scan(&id, &g.targetURL)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	im.groups[id], im.groupNames[k] = g, id
	return id, nil
}

// setGroup records what group id now is.
func (im *importer) setGroup(id int64, g *bannerGroup) {
	if old := im.groups[id]; old != nil {
		delete(im.groupNames, groupKey{old.merchantID, old.name})
	}
	im.groups[id], im.groupNames[groupKey{g.merchantID, g.name}] = g, id
	if im.nextGroupID != 0 && id >= im.nextGroupID {
		im.nextGroupID = id + 1
	}
}

// importBannerGroups checks each group's merchant and name and writes it.
// A stored group keeps its banners, which take its new name.
func (im *importer) importBannerGroups(d *afftrack.Dataset) error {
	for i := range d.BannerGroups {
		g := &d.BannerGroups[i]
		at := record{"BannerGroups", d.Start.BannerGroups + i}
		if err := im.checkMerchant(at, "MerchantId", g.MerchantID); err != nil {
			return err
		}
		other, err := im.groupNamed(g.MerchantID, g.Name)
		if err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
		if other != 0 && other != g.ID {
			return afftrack.Errorf(afftrack.EINVALID, "%s.Name: %q is already the name of banner group %d of merchant %d",
				at, g.Name, other, g.MerchantID)
		}
		stored, err := im.bannerGroup(g.ID)
		if err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
		if stored != nil && stored.merchantID != g.MerchantID {
			var n int64
			if err := im.tx.QueryRowContext(im.ctx, countOtherBanners, g.ID, g.MerchantID).Scan(&n); err != nil {
				return fmt.Errorf("import %s: %w", at, err)
			}
			if n > 0 {
				return afftrack.Errorf(afftrack.EINVALID, "%s.MerchantId: banner group %d holds banners of merchant %d",
					at, g.ID, stored.merchantID)
			}
		}
		created, modified, given := im.dateArgs(g.DateCreated, g.DateModified)
		if err := im.exec(upsertBannerGroup, g.ID, g.MerchantID, g.Name, g.TargetURL, created, modified,
			nullMillis(g.ExpiryDate), given); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
		if stored != nil && stored.name != g.Name {
			if err := im.exec(renameGroupBanners, g.Name, g.ID); err != nil {
				return fmt.Errorf("import %s: %w", at, err)
			}
		}
		im.setGroup(g.ID, &bannerGroup{merchantID: g.MerchantID, name: g.Name, targetURL: g.TargetURL})
	}
	return nil
}

// importBanners checks each banner's merchant and group, makes the groups
// its GroupName asks for, and writes it.
func (im *importer) importBanners(d *afftrack.Dataset) error {
	for i := range d.Banners {
		b := &d.Banners[i]
		at := record{"Banners", d.Start.Banners + i}
		if err := im.checkMerchant(at, "MerchantId", b.MerchantID); err != nil {
			return err
		}
		if err := im.keepsItsMerchant(at, b); err != nil {
			return err
		}
		groupID, g, err := im.bannersGroup(at, b)
		if err != nil {
			return err
		}
		target := b.TargetURL
		if target == "" {
			target = g.targetURL
		}
		if err := im.exec(upsertBanner, b.ID, b.MerchantID, toMillis(b.DateCreated), toMillis(b.DateModified),
			g.name, b.Name, target, b.Width, b.Height, b.ImageURL, b.AltText, groupID, b.DefaultForSize); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
		if b.DefaultForSize {
			im.defaults[b.ID] = at.index
		} else {
			delete(im.defaults, b.ID)
		}
	}
	return nil
}

// keepsItsMerchant refuses a stored banner given again with another
// merchant: its clicks and transactions name it with the merchant they
// were credited to, and a click on it now would credit the other.
func (im *importer) keepsItsMerchant(at record, b *afftrack.Banner) error {
	st, err := im.stmt(`SELECT merchant_id FROM banners WHERE id = $1`)
	var stored int64
	if err == nil {
		err = st.QueryRowContext(im.ctx, b.ID).Scan(&stored)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("import %s: %w", at, err)
	case stored != b.MerchantID:
		return afftrack.Errorf(afftrack.EINVALID, "%s.MerchantId: banner %d is merchant %d's; a banner keeps its merchant",
			at, b.ID, stored)
	}
	return nil
}

// bannersGroup returns the group banner b names, made if its GroupName
// names none: the next free id, the banner's TargetUrl and dates.
func (im *importer) bannersGroup(at record, b *afftrack.Banner) (int64, *bannerGroup, error) {
	if b.BannerGroupID.Valid {
		id := b.BannerGroupID.Value
		g, err := im.bannerGroup(id)
		switch {
		case err != nil:
			return 0, nil, fmt.Errorf("import %s.BannerGroupId: %w", at, err)
		case g == nil:
			return 0, nil, afftrack.Errorf(afftrack.EINVALID, "%s.BannerGroupId: banner group %d does not exist", at, id)
		case g.merchantID != b.MerchantID:
			return 0, nil, afftrack.Errorf(afftrack.EINVALID, "%s.BannerGroupId: banner group %d is merchant %d's, not merchant %d's",
				at, id, g.merchantID, b.MerchantID)
		case b.GroupName != "" && b.GroupName != g.name:
			return 0, nil, afftrack.Errorf(afftrack.EINVALID, "%s.GroupName: %q does not match the name of banner group %d, %q",
				at, b.GroupName, id, g.name)
		}
		return id, g, nil
	}
	id, err := im.groupNamed(b.MerchantID, b.GroupName)
	if err != nil {
		return 0, nil, fmt.Errorf("import %s.GroupName: %w", at, err)
	}
	if id != 0 {
		return id, im.groups[id], nil
	}
	if im.nextGroupID == 0 {
		if err := im.tx.QueryRowContext(im.ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM banner_groups`).Scan(&im.nextGroupID); err != nil {
			return 0, nil, fmt.Errorf("import %s.GroupName: %w", at, err)
		}
	}
	// A group's TargetUrl is required (BannerGroups): the group made here
	// takes its banner's, else its program's, as a coupon does.
	target := b.TargetURL
	if target == "" {
		var err error
		if target, err = im.programTarget(b.MerchantID); err != nil {
			return 0, nil, fmt.Errorf("import %s.TargetUrl: %w", at, err)
		}
		if target == "" {
			return 0, nil, afftrack.Errorf(afftrack.EINVALID,
				"%s.TargetUrl: is required: merchant %d has no banner group named %q and no program TargetUrl for the group the import makes",
				at, b.MerchantID, b.GroupName)
		}
	}
	id = im.nextGroupID
	if err := newID("banner group", id); err != nil {
		return 0, nil, fmt.Errorf("%s.GroupName: %w", at, err)
	}
	g := &bannerGroup{merchantID: b.MerchantID, name: b.GroupName, targetURL: target}
	if err := im.exec(insertBannerGroup, id, b.MerchantID, b.GroupName, target, toMillis(b.DateCreated),
		toMillis(b.DateModified)); err != nil {
		return 0, nil, fmt.Errorf("import %s.GroupName: %w", at, err)
	}
	im.setGroup(id, g)
	im.summary.NewBannerGroups++
	return id, g, nil
}

// checkDefaultBanners fails if a merchant has two default banners of one
// size, naming a banner of this import that made it so and the other.
// It runs once every banner is written, so a file may move a default from
// one banner to another in any order.
func (im *importer) checkDefaultBanners() error {
	if len(im.defaults) == 0 {
		return nil
	}
	rows, err := im.tx.QueryContext(im.ctx, `SELECT b.merchant_id, b.width, b.height, b.id FROM banners b
		WHERE b.default_for_size AND EXISTS (SELECT 1 FROM banners o WHERE o.default_for_size
			AND o.merchant_id = b.merchant_id AND o.width = b.width AND o.height = b.height AND o.id <> b.id)
		ORDER BY b.merchant_id, b.width, b.height, b.id`)
	if err != nil {
		return fmt.Errorf("import: check DefaultForSize: %w", err)
	}
	type size struct{ merchantID, width, height int64 }
	clash := map[size][]int64{}
	var order []size
	for rows.Next() {
		var k size
		var id int64
		if err := rows.Scan(&k.merchantID, &k.width, &k.height, &id); err != nil {
			rows.Close()
			return fmt.Errorf("import: check DefaultForSize: %w", err)
		}
		if clash[k] == nil {
			order = append(order, k)
		}
		clash[k] = append(clash[k], id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("import: check DefaultForSize: %w", err)
	}
	if len(order) == 0 {
		return nil
	}
	// The clash whose latest banner in the file is earliest is the first
	// the file made.
	type found struct {
		k           size
		last, other int64
		lastAt      int
	}
	var first *found
	for _, k := range order {
		ids := clash[k]
		// The banners of the file by their index, then the stored ones.
		sort.SliceStable(ids, func(i, j int) bool { return im.fileIndex(ids[i]) < im.fileIndex(ids[j]) })
		var inFile []int64
		for _, id := range ids {
			if _, ok := im.defaults[id]; ok {
				inFile = append(inFile, id)
			}
		}
		if len(inFile) == 0 {
			continue
		}
		f := &found{k: k}
		if len(inFile) >= 2 {
			f.last, f.other = inFile[1], inFile[0]
		} else {
			f.last = inFile[0]
			for _, id := range ids {
				if id != f.last {
					f.other = id
					break
				}
			}
		}
		f.lastAt = im.defaults[f.last]
		if first == nil || f.lastAt < first.lastAt {
			first = f
		}
	}
	if first == nil {
		return nil
	}
	b := afftrack.Banner{Width: first.k.width, Height: first.k.height}
	other := fmt.Sprintf("banner %d", first.other)
	if at, ok := im.defaults[first.other]; ok {
		other += fmt.Sprintf(" (Banners[%d])", at)
	}
	return afftrack.Errorf(afftrack.EINVALID, "Banners[%d].DefaultForSize: %s is also merchant %d's default banner of size %s; a merchant has one per size",
		first.lastAt, other, first.k.merchantID, b.Size())
}

// fileIndex returns the index in the file of a default banner the import
// wrote, or a number past every index for another.
func (im *importer) fileIndex(id int64) int {
	if at, ok := im.defaults[id]; ok {
		return at
	}
	return int(^uint(0) >> 1)
}
