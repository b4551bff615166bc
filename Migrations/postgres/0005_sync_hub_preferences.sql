-- The hub's own store of an account's preferences follows sync both ways (README "Sync"):
-- a change a device pushes is applied to the preference table (so a server app reading
-- the account sees it, and its observers hear of it), and a write by a server app is a
-- change the devices pull, stamped with the hub's own hybrid logical clock (device 'hub'),
-- which moves past every clock pushed to it. Applying a pushed change sets
-- prefs.sync_applying for its transaction, so that it is not captured back. Nothing is
-- captured for an account until a device has synced it; the first device's registration
-- takes in what the table holds then.

ALTER TABLE prefs_account_state
    ADD COLUMN sync_clock_ms bigint NOT NULL DEFAULT 0,
    ADD COLUMN sync_clock_counter integer NOT NULL DEFAULT 0;

-- A part of an ident as the device's SQLite writes it: uppercase hex of its UTF-8 bytes.
CREATE FUNCTION prefs_sync_hex(text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT upper(encode(convert_to($1, 'UTF8'), 'hex')) $$;

CREATE FUNCTION prefs_sync_capture() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    owner text;
    row_suite text;
    row_key text;
    now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    stamp_ms bigint;
    stamp_counter integer;
    number bigint;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.type = OLD.type AND NEW.value IS NOT DISTINCT FROM OLD.value
        AND NEW.bytes IS NOT DISTINCT FROM OLD.bytes THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        owner := OLD.account; row_suite := OLD.suite; row_key := OLD.key;
    ELSE
        owner := NEW.account; row_suite := NEW.suite; row_key := NEW.key;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM sync_device WHERE account = owner) THEN
        RETURN NULL;
    END IF;
    UPDATE prefs_account_state SET
        sync_clock_counter = CASE WHEN now_ms > sync_clock_ms THEN 0
            ELSE sync_clock_counter + 1 END,
        sync_clock_ms = greatest(sync_clock_ms, now_ms),
        sync_sequence = sync_sequence + 1
    WHERE account = owner
    RETURNING sync_clock_ms, sync_clock_counter, sync_sequence
        INTO stamp_ms, stamp_counter, number;
    INSERT INTO sync_change (account, entity, ident, field, clock, device, present, type,
        value, bytes, sequence)
    VALUES (owner, 'preference', prefs_sync_hex(row_suite) || '.' || prefs_sync_hex(row_key),
        'value', lpad(stamp_ms::text, 15, '0') || '-' || lpad(stamp_counter::text, 6, '0')
            || '-hub',
        'hub', TG_OP <> 'DELETE',
        CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.type END,
        CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.value END,
        CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.bytes END, number)
    ON CONFLICT (account, entity, ident, field) DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = excluded.present,
        type = excluded.type, value = excluded.value, bytes = excluded.bytes,
        sequence = excluded.sequence
    WHERE sync_change.clock < excluded.clock;
    RETURN NULL;
END
$$;

CREATE TRIGGER preference_sync_capture
    AFTER INSERT OR UPDATE OR DELETE ON preference
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_capture();

GRANT EXECUTE ON FUNCTION prefs_sync_hex(text) TO prefs_account, prefs_service;
