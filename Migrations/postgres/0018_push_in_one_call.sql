-- A push in one call of the hub: prefs_sync_push reads the pushed document once, checks
-- each change against the rules and the clock bound, reads the hub's rows each change
-- meets, stores the winners, and returns all of it.
--
-- A push used four statements, and read its document four times (a round of 10,000
-- changes took 1,022 ms against its 1 s target): the rules and the bound checked from the
-- client, the rows met, the store (prefs_sync_push_store, which read it twice), and the
-- hub's clock. prefs_sync_push_store stays for clients of an older prefs, through the same
-- store.

CREATE TYPE prefs_sync_pushed AS (n bigint, entity text, ident text, field text, clock text,
    device text, present boolean, type text, value text, bytes text);

-- The pushed document as rows, read once.
CREATE FUNCTION prefs_sync_pushed_rows(document jsonb) RETURNS prefs_sync_pushed[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(ROW(d.n, d.entity, d.ident, d.field, d.clock, d.device,
            d.present, d.type, d.value, d.bytes)::prefs_sync_pushed), '{}')
    FROM jsonb_to_recordset(document) AS d(n bigint, entity text, ident text, field text,
        clock text, device text, present boolean, type text, value text, bytes text)
$$;

-- The store of a push (what prefs_sync_push_store did, on rows read once): the winners of
-- the pushed rows, all but the numbers in `skipped`, kept with their clocks, and the
-- preferences among them applied. One row (NULL, NULL, count of things taken), then the
-- bookmarks (kind and item idents) whose fields changed.
CREATE FUNCTION prefs_sync_store_pushed(owner text, pushed prefs_sync_pushed[],
    skipped bigint[], push_number bigint)
RETURNS TABLE (kind text, item text, taken bigint)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RETURN QUERY
    WITH c AS (
        SELECT DISTINCT ON (d.entity, d.ident, d.field) d.*
        FROM unnest(pushed) AS d
        WHERE d.n <> ALL(skipped)
        ORDER BY d.entity, d.ident, d.field, d.clock COLLATE "C" DESC
    ), won AS (
        INSERT INTO sync_change AS s (account, entity, ident, field, clock,
            device, present, type, value, bytes, sequence, suite, key)
        SELECT owner, c.entity, c.ident, c.field, c.clock, c.device, c.present,
            CASE WHEN c.entity <> 'preference' THEN c.type END,
            CASE WHEN c.entity <> 'preference' THEN c.value END,
            CASE WHEN c.entity <> 'preference' THEN c.bytes::bytea END,
            push_number,
            CASE WHEN c.entity = 'preference' THEN convert_from(
                decode(split_part(c.ident, '.', 1), 'hex'), 'UTF8') END,
            CASE WHEN c.entity = 'preference' THEN convert_from(
                decode(split_part(c.ident, '.', 2), 'hex'), 'UTF8') END
        FROM c
        ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
            clock = excluded.clock, device = excluded.device,
            present = excluded.present, type = excluded.type,
            value = excluded.value, bytes = excluded.bytes,
            sequence = excluded.sequence, suite = excluded.suite,
            key = excluded.key
        WHERE s.clock < excluded.clock
        RETURNING s.entity, s.ident, s.field, s.present, s.suite, s.key
    )
    SELECT NULL, NULL, count(DISTINCT (w.entity, w.ident)) FROM won AS w
    UNION ALL
    SELECT DISTINCT split_part(w.ident, '.', 1), split_part(w.ident, '.', 2), 0::bigint
    FROM won AS w WHERE w.entity <> 'preference';
    -- The preferences that won: their rows carry their clocks now (one pushed again applies
    -- its same value again, which changes nothing).
    INSERT INTO preference AS p (account, suite, key, type, value, bytes, updated_at)
    SELECT DISTINCT ON (s.suite, s.key) owner, s.suite, s.key, d.type, d.value,
        d.bytes::bytea, left(d.clock, 15)::bigint / 1000.0 - 978307200
    FROM unnest(pushed) AS d
    CROSS JOIN LATERAL (
        SELECT * FROM sync_change AS s WHERE s.account = owner AND s.entity = d.entity
            AND s.ident = d.ident AND s.field = d.field OFFSET 0) AS s
    WHERE s.clock = d.clock AND d.entity = 'preference' AND d.present AND d.n <> ALL(skipped)
    ON CONFLICT (account, suite, key) DO UPDATE SET
        type = excluded.type, value = excluded.value, bytes = excluded.bytes,
        updated_at = excluded.updated_at;
    DELETE FROM preference AS p USING sync_change AS s
    WHERE s.account = owner AND s.sequence = push_number AND s.entity = 'preference'
        AND NOT s.present AND p.account = owner AND p.suite = s.suite AND p.key = s.key;
END
$$;

CREATE OR REPLACE FUNCTION prefs_sync_push_store(owner text, document jsonb, skipped bigint[])
RETURNS TABLE (kind text, item text, taken bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    push_number bigint;
BEGIN
    SELECT b.number INTO push_number FROM prefs_sync_begin(owner) AS b;
    RETURN QUERY SELECT * FROM prefs_sync_store_pushed(owner,
        prefs_sync_pushed_rows(document), skipped, push_number);
END
$$;

-- A whole push. Rows by what their columns hold:
-- - refused: `n` and `refused` true; `problem` says why, NULL for a clock past the bound;
-- - met: `n` and the hub's row it met (entity .. bytes, a preference's value read from its
--   table), `newer` true when that row is as new or newer (the change loses to it), false
--   for an older row of another device numbered after `pulled_through` (the change replaces what
--   the device never saw);
-- - taken: `taken`, the count of things stored, with the hub's clock limit and bound;
-- - bookmark: `kind` and `item`, the idents of a bookmark whose fields changed.
CREATE FUNCTION prefs_sync_push(owner text, document jsonb, pulled_through bigint)
RETURNS TABLE (n bigint, entity text, ident text, field text, clock text, present boolean,
    type text, value text, bytes bytea, newer boolean, kind text, item text, taken bigint,
    problem text, refused boolean, clock_limit bigint, clock_bound bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    push_number bigint;
    pushed prefs_sync_pushed[] := prefs_sync_pushed_rows(document);
    skipped bigint[] := '{}';
    limit_ms bigint := prefs_sync_clock_limit();
    bound_ms bigint := (SELECT c.clock_bound_ms FROM prefs_sync_config AS c);
    checked record;
BEGIN
    SELECT b.number INTO push_number FROM prefs_sync_begin(owner) AS b;
    -- Each change against the rules and the clock bound, alone: a malformed one or one
    -- stamped too far ahead is refused and reported; the rest go on.
    FOR checked IN
        SELECT r.n, r.problem FROM (
            SELECT d.n, d.clock, prefs_sync_problem(d.entity, d.ident, d.field, d.clock,
                d.present, d.type, d.value, d.bytes::bytea) AS problem
            FROM unnest(pushed) AS d) AS r
        WHERE CASE WHEN r.problem IS NOT NULL THEN true
            ELSE split_part(r.clock, '-', 1)::bigint > limit_ms END
    LOOP
        skipped := skipped || checked.n;
        RETURN QUERY SELECT checked.n, NULL::text, NULL::text, NULL::text, NULL::text,
            NULL::boolean, NULL::text, NULL::text, NULL::bytea, NULL::boolean, NULL::text,
            NULL::text, NULL::bigint, checked.problem, true, NULL::bigint, NULL::bigint;
    END LOOP;
    -- The hub's rows as new or newer than a change, and the older ones of other devices
    -- that the pushing device had not pulled, before the store replaces them.
    RETURN QUERY
    SELECT d.n, s.entity, s.ident, s.field, s.clock, s.present,
        CASE WHEN s.entity = 'preference' THEN p.type ELSE s.type END,
        CASE WHEN s.entity = 'preference' THEN p.value ELSE s.value END,
        CASE WHEN s.entity = 'preference' THEN p.bytes ELSE s.bytes END,
        s.clock >= d.clock COLLATE "C", NULL::text, NULL::text, NULL::bigint, NULL::text,
        NULL::boolean, NULL::bigint, NULL::bigint
    FROM unnest(pushed) AS d
    CROSS JOIN LATERAL (
        SELECT * FROM sync_change AS x WHERE x.account = owner AND x.entity = d.entity
            AND x.ident = d.ident AND x.field = d.field OFFSET 0) AS s
    LEFT JOIN preference AS p ON s.entity = 'preference' AND s.present
        AND p.account = s.account AND p.suite = s.suite AND p.key = s.key
    WHERE d.n <> ALL(skipped) AND (s.clock >= d.clock COLLATE "C"
        OR (s.sequence > pulled_through AND s.device <> d.device));
    RETURN QUERY
    SELECT NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean,
        NULL::text, NULL::text, NULL::bytea, NULL::boolean, w.kind, w.item,
        CASE WHEN w.kind IS NULL THEN w.taken END, NULL::text, NULL::boolean,
        CASE WHEN w.kind IS NULL THEN limit_ms END, CASE WHEN w.kind IS NULL THEN bound_ms END
    FROM prefs_sync_store_pushed(owner, pushed, skipped, push_number) AS w;
END
$$;

DO $definer$
DECLARE
    fn regprocedure;
BEGIN
    FOREACH fn IN ARRAY ARRAY[
        'prefs_sync_pushed_rows(jsonb)'::regprocedure,
        'prefs_sync_store_pushed(text, prefs_sync_pushed[], bigint[], bigint)'::regprocedure,
        'prefs_sync_push_store(text, jsonb, bigint[])'::regprocedure,
        'prefs_sync_push(text, jsonb, bigint)'::regprocedure]
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
    END LOOP;
    -- What a client calls runs as the owner and checks that the caller acts for the
    -- account (prefs_sync_begin); the pieces inside are the owner's alone.
    FOREACH fn IN ARRAY ARRAY[
        'prefs_sync_push_store(text, jsonb, bigint[])'::regprocedure,
        'prefs_sync_push(text, jsonb, bigint)'::regprocedure]
    LOOP
        EXECUTE format('ALTER FUNCTION %s SECURITY DEFINER', fn);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO prefs_account, prefs_service', fn);
    END LOOP;
END
$definer$;
