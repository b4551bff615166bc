-- Collecting a tombstone must not change any outcome (README "Sync"). Per account, the
-- horizon of what was collected: the newest clock and the highest number of the tombstones
-- dropped. A pushed change older than the horizon for a field the hub no longer has loses,
-- as it would have lost to the tombstone; a device whose cursor is behind the horizon
-- resynchronises in full instead of pulling a delta.
ALTER TABLE prefs_account_state
    ADD COLUMN sync_horizon_clock text COLLATE "C",
    ADD COLUMN sync_horizon_sequence bigint NOT NULL DEFAULT 0;

-- A device that has not pulled for this many days (a phone lost, a laptop given away) no
-- longer holds tombstones back; if it comes back, its cursor is behind the horizon and it
-- resynchronises in full, so nothing is lost by forgetting it.
ALTER TABLE prefs_sync_config ADD COLUMN device_expiry_days integer NOT NULL DEFAULT 90
    CHECK (device_expiry_days > 0);
