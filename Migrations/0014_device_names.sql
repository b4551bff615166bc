-- Devices named by their users: this device's own name (sent to the hub at the next round,
-- `name_sent` 0 until it was), and the names of the account's devices as the last round
-- read them from the hub, for conflict listings.
ALTER TABLE sync_state ADD COLUMN device_name TEXT;
ALTER TABLE sync_state ADD COLUMN name_sent INTEGER NOT NULL DEFAULT 1 CHECK (name_sent IN (0, 1));

CREATE TABLE sync_device_name (
    device TEXT PRIMARY KEY,
    name TEXT NOT NULL
) STRICT, WITHOUT ROWID;
