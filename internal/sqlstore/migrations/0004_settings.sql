-- 0004_settings: the network's settings that the data depends on, one row
-- each. The first is time_zone: datetimes are stored as wall clocks of the
-- network's zone, so a server started with another --timezone would shift
-- every one of them; the zone is recorded on first use and checked after.

CREATE TABLE settings (
    name  TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);
