-- A set sent alone: the typed set's upsert (refused when a declaration of another type
-- stands in the way) and the account's history rows after the caller's last seen one, in
-- one statement that commits on its own. The client sends it instead of BEGIN, the upsert,
-- COMMIT and the history read when a write transaction holds nothing but the one set on a
-- connection of its own (no pooler prelude), so that it parses, binds and reads one
-- statement instead of four. It runs as its caller: row-level security applies as to the
-- statements it stands for, and the triggers that keep history and sync stamps fire as
-- they do for them.
--
-- The result is the history rows' columns (as the history read returns them) followed by
-- `declared`: one row whose `declared` names the declaration's type when the set was
-- refused (nothing stored), else the history rows after `after_id`, `declared` NULL.
CREATE FUNCTION prefs_set_value(owner text, set_suite text, set_key text, set_type text,
    set_value text, set_bytes bytea, set_at double precision, set_version integer,
    after_id bigint)
RETURNS TABLE (id bigint, suite text, key text, type text, value text, bytes bytea,
    old_type text, old_value text, old_bytes bytea, changed_at double precision,
    declared text)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    other text;
BEGIN
    SELECT d.type INTO other FROM preference_declaration AS d
        WHERE d.account = owner AND d.suite = set_suite AND d.key = set_key
            AND d.type <> set_type;
    IF other IS NOT NULL THEN
        RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text,
            NULL::bytea, NULL::text, NULL::text, NULL::bytea, NULL::double precision, other;
        RETURN;
    END IF;
    INSERT INTO preference AS p (account, suite, key, type, value, bytes, updated_at,
        value_version)
    VALUES (owner, set_suite, set_key, set_type, set_value, set_bytes, set_at, set_version)
    ON CONFLICT (account, suite, key) DO UPDATE
    SET type = excluded.type, value = excluded.value, bytes = excluded.bytes,
        updated_at = excluded.updated_at, value_version = excluded.value_version
    -- The value already stored is no change: no time moves, no one is told.
    WHERE (p.type, p.value, p.bytes, p.value_version)
        IS DISTINCT FROM (excluded.type, excluded.value, excluded.bytes,
            excluded.value_version);
    RETURN QUERY SELECT h.id, h.suite, h.key, h.type, h.value, h.bytes, h.old_type,
            h.old_value, h.old_bytes, h.changed_at, NULL::text
        FROM preference_history AS h
        WHERE h.account = owner AND h.id > after_id ORDER BY h.id;
END;
$$;

-- Its search_path pinned as every function of the schema's is; its caller's roles only.
DO $pin$
DECLARE
    fn regprocedure := 
        'prefs_set_value(text, text, text, text, text, bytea, double precision, integer, bigint)';
BEGIN
    EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
        fn, pg_catalog.current_schema());
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO prefs_account, prefs_service', fn);
END
$pin$;
