package api

import (
	"context"

	"github.com/afftrack/afftrack"
)

// fakeMerchantViews serves fixed affiliates, banners and groups by
// merchant id, the way a store would: each merchant's own, by id.
type fakeMerchantViews struct {
	affiliates map[int64][]afftrack.MemberAffiliate
	banners    map[int64][]afftrack.MerchantBanner
	groups     map[int64][]afftrack.BannerGroup
	err        error
}

func (f *fakeMerchantViews) FindMemberAffiliates(_ context.Context, flt afftrack.MemberAffiliateFilter) ([]*afftrack.MemberAffiliate, error) {
	if f.err != nil {
		return nil, f.err
	}

	list := []*afftrack.MemberAffiliate{}
	for _, a := range f.affiliates[flt.MerchantID] {
		if flt.Status == 0 || flt.Status == a.Status {
			a.TrafficSources = nil
			list = append(list, &a)
		}
	}
	return list, nil
}

func (f *fakeMerchantViews) FindMemberAffiliate(_ context.Context, merchantID, id int64) (*afftrack.MemberAffiliate, error) {
	if f.err != nil {
		return nil, f.err
	}
	for _, a := range f.affiliates[merchantID] {
		if a.ID == id {
			return &a, nil
		}
	}
	return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such affiliate")
}

func (f *fakeMerchantViews) FindMerchantBanners(_ context.Context, flt afftrack.MerchantBannerFilter) ([]*afftrack.MerchantBanner, error) {
	if f.err != nil {
		return nil, f.err
	}
	list := []*afftrack.MerchantBanner{}
	for _, b := range f.banners[flt.MerchantID] {
		if flt.Match(&b) {
			list = append(list, &b)
		}
	}
	return list, nil
}

func (f *fakeMerchantViews) FindMerchantBanner(_ context.Context, merchantID, id int64) (*afftrack.MerchantBanner, error) {
	if f.err != nil {
		return nil, f.err
	}
	for _, b := range f.banners[merchantID] {
		if b.ID == id {
			return &b, nil
		}
	}
	return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such banner")
}

func (f *fakeMerchantViews) FindBannerGroups(_ context.Context, merchantID int64) ([]*afftrack.BannerGroup, error) {
	if f.err != nil {
		return nil, f.err
	}
	list := []*afftrack.BannerGroup{}
	for _, g := range f.groups[merchantID] {
		list = append(list, &g)
	}
	return list, nil
}

func (f *fakeMerchantViews) FindBannerGroup(_ context.Context, merchantID, id int64) (*afftrack.BannerGroup, error) {
	if f.err != nil {
		return nil, f.err
	}
	for _, g := range f.groups[merchantID] {
		if g.ID == id {
			return &g, nil
		}
	}
	return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such banner group")
}
