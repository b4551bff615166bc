-- Devices named by their users (`prefs sync name "Anna's laptop"`), so that conflict
-- listings say which device lost or won instead of a random id. A name is 1 to 64
-- characters without control characters; a device sets its own through the hub's function,
-- for its own account only, and reads the names of its account's devices (row-level
-- security keeps other accounts' apart).
ALTER TABLE sync_device ADD COLUMN name text
    CHECK (name IS NULL OR (length(name) BETWEEN 1 AND 64 AND name !~ '[[:cntrl:]]'));

CREATE FUNCTION prefs_sync_device_name(owner text, device_id text, device_name text)
RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM prefs_sync_acting(owner);
    INSERT INTO sync_device (account, device, cursor, seen_at, name)
    VALUES (owner, device_id, 0, extract(epoch FROM now()) - 978307200, device_name)
    ON CONFLICT (account, device) DO UPDATE SET name = excluded.name;
END
$$;

DO $definer$
BEGIN
    EXECUTE format('ALTER FUNCTION prefs_sync_device_name(text, text, text) SECURITY DEFINER'
        || ' SET search_path = pg_catalog, %I, pg_temp', pg_catalog.current_schema());
    REVOKE ALL ON FUNCTION prefs_sync_device_name(text, text, text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION prefs_sync_device_name(text, text, text)
        TO prefs_account, prefs_service;
END
$definer$;
