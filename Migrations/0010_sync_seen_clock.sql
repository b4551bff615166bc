-- The newest clock this device has seen confirmed by the hub (pulled from it, or its own
-- change taken by it), within the bound of its wall clock. Its clock never goes back below
-- it, also when it comes back from running ahead and stamps its waiting changes again: a
-- change made after seeing another never loses to it. (Before, the clock went back to the
-- newest clock still in its fields; a pulled clock overwritten by a local write was
-- forgotten, and the device's later change lost to one it had already pulled.)
ALTER TABLE sync_state ADD COLUMN seen_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sync_state ADD COLUMN seen_counter INTEGER NOT NULL DEFAULT 0;
