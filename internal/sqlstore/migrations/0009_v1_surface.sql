-- 0009_v1_surface: what the V1 surface's remaining functions read
-- (v1-surface.md section 7): the dates, summary and categories of
-- merchants, the dates of affiliates and memberships, a membership's
-- traffic sources, a program's listing and commission type, banner
-- groups and a banner's group and default for its size, the dates,
-- landing page and terms of coupons, promotions, and the traffic type a
-- click counts under. Types and rules are 0001's (see its header).
--
-- The Go step (migrate_0009.go) gives the rows stored before this
-- migration what an import gives a record that leaves the new fields out:
-- its dates are the migration's time, a coupon's TargetUrl its program's,
-- and each banner goes into a group of its merchant named as its
-- group_name, which it keeps as a copy of its group's name. New NOT NULL
-- columns have a constant default, so adding them rewrites no row.

ALTER TABLE merchants ADD COLUMN date_created BIGINT NOT NULL DEFAULT 0;
ALTER TABLE merchants ADD COLUMN date_modified BIGINT NOT NULL DEFAULT 0;
ALTER TABLE merchants ADD COLUMN summary TEXT NOT NULL DEFAULT '';
-- Categories 1st to 3rd (MerchantNewCategory); NULL past the last.
ALTER TABLE merchants ADD COLUMN new_category TEXT;
ALTER TABLE merchants ADD COLUMN new_category2 TEXT;
ALTER TABLE merchants ADD COLUMN new_category3 TEXT;

ALTER TABLE affiliates ADD COLUMN date_created BIGINT NOT NULL DEFAULT 0;
ALTER TABLE affiliates ADD COLUMN date_modified BIGINT NOT NULL DEFAULT 0;

-- date_applied is NULL for an Invited membership, date_approved for any
-- but a Joined one.
ALTER TABLE memberships ADD COLUMN date_applied BIGINT;
ALTER TABLE memberships ADD COLUMN date_approved BIGINT;
ALTER TABLE memberships ADD COLUMN date_modified BIGINT NOT NULL DEFAULT 0;

-- A membership's traffic sources in order (position from 1): type is a
-- TrafficType, status a TrafficSourceStatus; the columns of the groups
-- other than the type's are NULL. None: the membership's own traffic
-- stands for one.
CREATE TABLE membership_traffic_sources (
    affiliate_id                    BIGINT   NOT NULL,
    merchant_id                     BIGINT   NOT NULL,
    position                        BIGINT   NOT NULL,
    type                            SMALLINT NOT NULL,
    status                          SMALLINT NOT NULL,
    website_date_created            BIGINT,
    website_date_modified           BIGINT,
    website_url                     TEXT,
    website_name                    TEXT,
    website_description             TEXT,
    website_category                TEXT,
    website_type                    TEXT,
    website_weekly_visitors         BIGINT,
    website_years_online            BIGINT,
    website_channel                 TEXT,
    website_verified                BOOLEAN,
    email_list_date_created         BIGINT,
    email_list_date_modified        BIGINT,
    email_list_name                 TEXT,
    email_list_description          TEXT,
    email_list_category             TEXT,
    email_list_size                 BIGINT,
    email_list_frequency            TEXT,
    email_list_opt_in               TEXT,
    social_media_page_date_created  BIGINT,
    social_media_page_date_modified BIGINT,
    social_media_page_category      TEXT,
    social_media_page_type          TEXT,
    social_media_page_name          TEXT,
    social_media_page_url           TEXT,
    social_media_page_followers     BIGINT,
    PRIMARY KEY (affiliate_id, merchant_id, position),
    FOREIGN KEY (affiliate_id, merchant_id) REFERENCES memberships (affiliate_id, merchant_id)
);

-- commission_type is a MerchantType; NULL derives it from the Commission.
ALTER TABLE programs ADD COLUMN listed BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE programs ADD COLUMN commission_type SMALLINT;

-- A group's name is unique among its merchant's, exactly.
CREATE TABLE banner_groups (
    id            BIGINT NOT NULL PRIMARY KEY,
    merchant_id   BIGINT NOT NULL REFERENCES merchants (id),
    name          TEXT   NOT NULL,
    target_url    TEXT   NOT NULL,
    date_created  BIGINT NOT NULL,
    date_modified BIGINT NOT NULL,
    expiry_date   BIGINT,
    UNIQUE (merchant_id, name)
);

-- group_id is never NULL once the step has run (a column added with a
-- REFERENCES clause must default to NULL on SQLite); group_name stays, a
-- copy of the group's name, for the readers of the banners alone.
ALTER TABLE banners ADD COLUMN group_id BIGINT REFERENCES banner_groups (id);
ALTER TABLE banners ADD COLUMN default_for_size BOOLEAN NOT NULL DEFAULT FALSE;

CREATE INDEX banners_group ON banners (group_id);

ALTER TABLE coupons ADD COLUMN date_created BIGINT NOT NULL DEFAULT 0;
ALTER TABLE coupons ADD COLUMN date_modified BIGINT NOT NULL DEFAULT 0;
ALTER TABLE coupons ADD COLUMN target_url TEXT NOT NULL DEFAULT '';
ALTER TABLE coupons ADD COLUMN terms_and_conditions TEXT NOT NULL DEFAULT '';

-- affiliate_id NULL: every Joined affiliate's; set: that affiliate's only.
CREATE TABLE promotions (
    id                   BIGINT NOT NULL PRIMARY KEY,
    merchant_id          BIGINT NOT NULL REFERENCES merchants (id),
    date_created         BIGINT NOT NULL,
    date_modified        BIGINT NOT NULL,
    description          TEXT   NOT NULL,
    target_url           TEXT   NOT NULL,
    terms_and_conditions TEXT   NOT NULL,
    start_date           BIGINT,
    end_date             BIGINT,
    affiliate_id         BIGINT REFERENCES affiliates (id)
);

CREATE INDEX promotions_merchant ON promotions (merchant_id, id);

-- The TrafficType a click counts under in reports: its membership's when
-- it was recorded, else Website (1). A click recorded before this
-- migration takes its membership's as it is now; only those of a
-- membership of another type are rewritten.
ALTER TABLE clicks ADD COLUMN traffic_type SMALLINT NOT NULL DEFAULT 1;

UPDATE clicks SET traffic_type = (SELECT ms.traffic_type FROM memberships ms
    WHERE ms.affiliate_id = clicks.affiliate_id AND ms.merchant_id = clicks.merchant_id)
WHERE EXISTS (SELECT 1 FROM memberships ms
    WHERE ms.affiliate_id = clicks.affiliate_id AND ms.merchant_id = clicks.merchant_id AND ms.traffic_type <> 1);
