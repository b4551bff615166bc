-- The hub is the account's store (README "Sync"). The engine's own tables (preference,
-- bookmark, bookmark_tag) are what devices sync with; sync_change keeps beside them the
-- clock, the number and the presence of every synced field. A preference's value is read
-- from the preference table when a device pulls: the hub keeps no second copy of it. A
-- bookmark's fields keep their merged value beside their clock (a field can outlive its
-- bookmark row, deleted meanwhile by another device), as on a device.
--
-- What a server app writes through the engine is stamped here, by triggers, with the hub's
-- clock (device part "hub") and the numbering of pushes, so it reaches the devices on their
-- next pull and wakes `sync --watch`. What a push applies is not stamped again
-- (prefs.sync_applying, set for the push's transaction only).

ALTER TABLE prefs_account_state
    -- Stamping runs for accounts that sync (set by the first contact of a device).
    ADD COLUMN sync_on boolean NOT NULL DEFAULT false,
    -- Bookmarks a hub held only as sync fields, before this file, are to be built.
    ADD COLUMN sync_rebuild boolean NOT NULL DEFAULT false;

-- A synced preference names its row: its suite and key (NULL for bookmarks and tags).
ALTER TABLE sync_change ADD COLUMN suite text, ADD COLUMN key text;

-- A name as a part of an ident: its UTF-8 bytes in upper-case hex, as the devices write it.
CREATE FUNCTION prefs_sync_name(text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT upper(encode(convert_to($1, 'UTF8'), 'hex'))
$$;

-- The number of this transaction's changes of the account: taken once per transaction,
-- under the account's sync lock (the same advisory lock a push takes, held to the commit),
-- so that numbers commit in order and a pull from a cursor never skips one.
CREATE FUNCTION prefs_sync_number(owner text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    taken text := current_setting('prefs.sync_number', true);
    number bigint;
BEGIN
    IF taken IS NOT NULL AND taken <> ''
        AND substr(taken, strpos(taken, ' ') + 1) = owner THEN
        RETURN split_part(taken, ' ', 1)::bigint;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('prefs sync ' || owner, 0));
    number := nextval('prefs_sync_sequence');
    PERFORM set_config('prefs.sync_number', number || ' ' || owner, true);
    RETURN number;
END
$$;

-- The hub's clock reading for a field whose newest clock (or the account's horizon) is
-- `after`: now, or just past `after` when that is later (a device's clock may run ahead
-- within the bound). A counter that would pass 999999 moves the milliseconds on.
CREATE FUNCTION prefs_sync_next_clock(now_ms bigint, after text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN after IS NULL OR after !~ '^[0-9]{15}-[0-9]{6}-' OR now_ms > left(after, 15)::bigint
            THEN lpad(now_ms::text, 15, '0') || '-000000-hub'
        WHEN substr(after, 17, 6)::integer < 999999
            THEN left(after, 15) || '-' || lpad((substr(after, 17, 6)::integer + 1)::text, 6, '0')
                || '-hub'
        ELSE lpad((left(after, 15)::bigint + 1)::text, 15, '0') || '-000000-hub'
    END
$$;

CREATE FUNCTION prefs_sync_now_ms() RETURNS bigint
LANGUAGE sql VOLATILE AS $$
    SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint
$$;

-- Whether writes of the session's account are stamped now.
CREATE FUNCTION prefs_sync_stamping(owner text) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT coalesce(current_setting('prefs.sync_applying', true), '') <> 'on'
        AND coalesce((SELECT sync_on FROM prefs_account_state WHERE account = owner), false)
$$;

-- Stamps one field with the hub's clock and the transaction's number.
CREATE FUNCTION prefs_sync_stamp(owner text, stamp_entity text, stamp_ident text,
    stamp_field text, stamp_present boolean, stamp_type text, stamp_value text,
    stamp_suite text DEFAULT NULL, stamp_key text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    number bigint := prefs_sync_number(owner);
    newest text;
    account_channel text;
BEGIN
    SELECT greatest(
        (SELECT s.clock FROM sync_change AS s WHERE s.account = owner
            AND s.entity = stamp_entity AND s.ident = stamp_ident AND s.field = stamp_field),
        a.sync_horizon_clock), a.channel
    INTO newest, account_channel
    FROM prefs_account_state AS a WHERE a.account = owner;
    INSERT INTO sync_change AS s (account, entity, ident, field, clock, device, present, type,
        value, bytes, sequence, suite, key)
    VALUES (owner, stamp_entity, stamp_ident, stamp_field,
        prefs_sync_next_clock(prefs_sync_now_ms(), newest), 'hub', stamp_present, stamp_type,
        stamp_value, NULL, number, stamp_suite, stamp_key)
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO UPDATE SET
        clock = excluded.clock, device = excluded.device, present = excluded.present,
        type = excluded.type, value = excluded.value, bytes = NULL,
        sequence = excluded.sequence, suite = excluded.suite, key = excluded.key;
    PERFORM pg_notify(account_channel, '');
END
$$;

-- Before a statement of a syncing account writes, its sync lock: always taken before the
-- account's state row (which the history and the ids lock), as a push takes it, so that a
-- server transaction and a push never wait for each other in a cycle.
CREATE FUNCTION prefs_sync_lock() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    owner text := prefs_current_account();
BEGIN
    IF owner IS NOT NULL AND prefs_sync_stamping(owner) THEN
        PERFORM prefs_sync_number(owner);
    END IF;
    RETURN NULL;
END
$$;

-- A preference written by the server, one row at a time (a statement-level trigger costs a
-- planning of its queries per statement, more than the row-level one for the single-row
-- writes an app makes).
CREATE FUNCTION prefs_sync_stamp_preference() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    written preference;
BEGIN
    -- First and inline: a push applies thousands of rows with it on.
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN written := OLD; ELSE written := NEW; END IF;
    IF TG_OP = 'UPDATE' AND NEW.type = OLD.type AND NEW.value IS NOT DISTINCT FROM OLD.value
        AND NEW.bytes IS NOT DISTINCT FROM OLD.bytes THEN
        RETURN NULL;
    END IF;
    IF NOT prefs_sync_stamping(written.account) OR EXISTS (
        SELECT 1 FROM preference_declaration AS d WHERE d.account = written.account
            AND d.suite = written.suite AND d.key = written.key AND d.device_local) THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_sync_stamp(written.account, 'preference',
        prefs_sync_name(written.suite) || '.' || prefs_sync_name(written.key), 'value',
        TG_OP <> 'DELETE', NULL, NULL, written.suite, written.key);
    RETURN NULL;
END
$$;

-- A bookmark's folder as sync names it: the hex names of its folder path joined by dots,
-- the top-level folder of its category when it has no folder, '' at the top level.
CREATE FUNCTION prefs_sync_folder(owner text, folder bigint, category text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN $2 IS NULL THEN coalesce(prefs_sync_name($3), '')
        ELSE coalesce((
            WITH RECURSIVE chain (id, parent_id, name, depth) AS (
                SELECT f.id, f.parent_id, f.name, 0 FROM bookmark_folder AS f
                WHERE f.account = $1 AND f.id = $2
                UNION ALL
                SELECT f.id, f.parent_id, f.name, c.depth + 1
                FROM bookmark_folder AS f JOIN chain AS c
                    ON f.account = $1 AND f.id = c.parent_id
                WHERE c.depth < 1000)
            SELECT string_agg(prefs_sync_name(name), '.' ORDER BY depth DESC) FROM chain), '')
    END
$$;

-- Bookmarks written by the server: every field that changed, as a device stamps them.
CREATE FUNCTION prefs_sync_stamp_bookmark() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    row_account text;
    bookmark_ident text;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN row_account := OLD.account; ELSE row_account := NEW.account; END IF;
    IF NOT prefs_sync_stamping(row_account) THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        bookmark_ident := prefs_sync_name(OLD.kind) || '.' || prefs_sync_name(OLD.item_id);
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'exists', false, NULL, NULL);
        RETURN NULL;
    END IF;
    bookmark_ident := prefs_sync_name(NEW.kind) || '.' || prefs_sync_name(NEW.item_id);
    IF TG_OP = 'INSERT' THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'exists', true, NULL, NULL);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.title IS DISTINCT FROM NEW.title THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'title', true, 'string',
            NEW.title);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.url IS DISTINCT FROM NEW.url THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'url', true,
            CASE WHEN NEW.url IS NOT NULL THEN 'string' END, NEW.url);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.category IS DISTINCT FROM NEW.category THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'category', true,
            CASE WHEN NEW.category IS NOT NULL THEN 'string' END, NEW.category);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.note IS DISTINCT FROM NEW.note THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'note', true,
            CASE WHEN NEW.note IS NOT NULL THEN 'string' END, NEW.note);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.position IS DISTINCT FROM NEW.position THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'position', true, 'int',
            NEW.position::text);
    END IF;
    IF TG_OP = 'INSERT' OR OLD.folder_id IS DISTINCT FROM NEW.folder_id
        OR (NEW.folder_id IS NULL AND OLD.category IS DISTINCT FROM NEW.category) THEN
        PERFORM prefs_sync_stamp(row_account, 'bookmark', bookmark_ident, 'folder', true, 'string',
            prefs_sync_folder(row_account, NEW.folder_id, NEW.category));
    END IF;
    RETURN NULL;
END
$$;

-- A bookmark deleted takes its tags: each gets its tombstone while they are still there.
CREATE FUNCTION prefs_sync_stamp_bookmark_tags() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') <> 'on'
        AND prefs_sync_stamping(OLD.account) THEN
        PERFORM prefs_sync_stamp(OLD.account, 'tag',
            prefs_sync_name(OLD.kind) || '.' || prefs_sync_name(OLD.item_id) || '.'
                || prefs_sync_name(t.tag), 'present', false, NULL, NULL)
        FROM bookmark_tag AS t WHERE t.account = OLD.account AND t.bookmark_id = OLD.id;
    END IF;
    RETURN OLD;
END
$$;

-- Tags added or removed by the server (those removed with their bookmark have their
-- tombstones already).
CREATE FUNCTION prefs_sync_stamp_tag() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    tag_row bookmark_tag;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN tag_row := OLD; ELSE tag_row := NEW; END IF;
    IF NOT prefs_sync_stamping(tag_row.account) THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_sync_stamp(tag_row.account, 'tag',
        prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
            || prefs_sync_name(tag_row.tag), 'present', TG_OP = 'INSERT', NULL, NULL)
    FROM bookmark AS b WHERE b.account = tag_row.account AND b.id = tag_row.bookmark_id;
    RETURN NULL;
END
$$;

-- Before a statement of a syncing account writes bookmarks or tags, its sync lock: taken
-- before the account's state row (which a bookmark's id is taken from), as a push takes it.
-- (Preferences lock no state row: their triggers take the lock when they need it.)
DO $triggers$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['bookmark', 'bookmark_tag'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE ON %I'
            ' FOR EACH STATEMENT EXECUTE FUNCTION prefs_sync_lock()', name || '_sync_lock', name);
    END LOOP;
END
$triggers$;

CREATE TRIGGER preference_sync_stamp AFTER INSERT OR UPDATE OR DELETE ON preference
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_stamp_preference();

CREATE TRIGGER bookmark_sync_stamp AFTER INSERT OR UPDATE OR DELETE ON bookmark
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_stamp_bookmark();
CREATE TRIGGER bookmark_sync_tags BEFORE DELETE ON bookmark
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_stamp_bookmark_tags();
CREATE TRIGGER bookmark_tag_sync_stamp AFTER INSERT OR DELETE ON bookmark_tag
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_stamp_tag();

-- The history of preferences without a hot row. Each row's id is dense
-- per account, as before, but taken from the account's newest history row (its index's last
-- entry) under the account's lock (the advisory lock sync takes too, held to the commit), not
-- from a counter in the account's state row: updating one row thousands of times in a
-- transaction made each update slower than the last (a server transaction of 10,000 writes
-- took 24 s), and so did a push that applied 10,000 changes. Writers of an account still
-- take their ids one after another and commit in that order, so a reader of the rows after
-- an id never misses one.
CREATE FUNCTION prefs_record_history(accounts text[], suites text[], keys text[],
    types text[], vals text[], bytes_ bytea[], old_types text[], old_vals text[],
    old_bytes_ bytea[], times double precision[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    owner text;
    written bigint;
    last bigint;
    kept integer;
    account_channel text;
BEGIN
    FOR owner, written IN
        SELECT a, count(*) FROM unnest(accounts) AS a GROUP BY a
    LOOP
        PERFORM pg_advisory_xact_lock(hashtextextended('prefs sync ' || owner, 0));
        INSERT INTO prefs_account_state (account) VALUES (owner)
            ON CONFLICT (account) DO NOTHING;
        SELECT history_limit, channel INTO kept, account_channel
            FROM prefs_account_state WHERE account = owner;
        -- Past the newest row, and past the counter that numbered them before this file.
        SELECT greatest(
            (SELECT h.id FROM preference_history AS h WHERE h.account = owner
                ORDER BY h.id DESC LIMIT 1),
            (SELECT a.last_change FROM prefs_account_state AS a WHERE a.account = owner), 0)
            INTO last;
        INSERT INTO preference_history (account, id, suite, key, type, value, bytes,
            old_type, old_value, old_bytes, changed_at)
        SELECT owner, last + row_number() OVER (ORDER BY h.suite, h.key), h.suite,
            h.key, h.type, h.value, h.bytes, h.old_type, h.old_value, h.old_bytes, h.changed_at
        FROM unnest(accounts, suites, keys, types, vals, bytes_, old_types, old_vals,
            old_bytes_, times)
            AS h (account, suite, key, type, value, bytes, old_type, old_value, old_bytes,
                changed_at)
        WHERE h.account = owner;
        last := last + written;
        -- Keeps the newest `kept` rows (at least one: other connections learn of changes
        -- from it).
        DELETE FROM preference_history WHERE account = owner
            AND id > last - written - greatest(kept, 1) AND id <= last - greatest(kept, 1);
        -- One notification per channel and transaction: PostgreSQL folds identical ones.
        PERFORM pg_notify(account_channel, '');
    END LOOP;
END
$$;

-- Inside a push (prefs.sync_applying), which writes thousands of rows in a statement, the
-- history is recorded once per statement; any other write records it row by row (cheaper
-- for the single-row statements of apps).
CREATE FUNCTION prefs_record_row() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    owner text;
    kept integer;
    account_channel text;
    floor bigint;
    next_id bigint;
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.type = OLD.type AND NEW.value IS NOT DISTINCT FROM OLD.value
        AND NEW.bytes IS NOT DISTINCT FROM OLD.bytes THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN owner := OLD.account; ELSE owner := NEW.account; END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('prefs sync ' || owner, 0));
    SELECT history_limit, channel, last_change INTO kept, account_channel, floor
        FROM prefs_account_state WHERE account = owner;
    IF NOT FOUND THEN
        INSERT INTO prefs_account_state (account) VALUES (owner)
            ON CONFLICT (account) DO NOTHING;
        SELECT history_limit, channel, last_change INTO kept, account_channel, floor
            FROM prefs_account_state WHERE account = owner;
    END IF;
    SELECT greatest(h.id, floor) INTO next_id FROM preference_history AS h
        WHERE h.account = owner ORDER BY h.id DESC LIMIT 1;
    next_id := coalesce(next_id, floor, 0) + 1;
    IF TG_OP = 'DELETE' THEN
        INSERT INTO preference_history
            (account, id, suite, key, old_type, old_value, old_bytes, changed_at)
        VALUES (owner, next_id, OLD.suite, OLD.key, OLD.type, OLD.value, OLD.bytes,
            extract(epoch FROM clock_timestamp()) - 978307200);
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO preference_history (account, id, suite, key, type, value, bytes,
            old_type, old_value, old_bytes, changed_at)
        VALUES (owner, next_id, NEW.suite, NEW.key, NEW.type, NEW.value, NEW.bytes,
            OLD.type, OLD.value, OLD.bytes, NEW.updated_at);
    ELSE
        INSERT INTO preference_history
            (account, id, suite, key, type, value, bytes, changed_at)
        VALUES (owner, next_id, NEW.suite, NEW.key, NEW.type, NEW.value, NEW.bytes,
            NEW.updated_at);
    END IF;
    DELETE FROM preference_history WHERE account = owner AND id = next_id - greatest(kept, 1);
    PERFORM pg_notify(account_channel, '');
    RETURN NULL;
END
$$;

CREATE FUNCTION prefs_record_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') <> 'on' THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_record_history(array_agg(account), array_agg(suite), array_agg(key),
        array_agg(type), array_agg(value), array_agg(bytes), array_agg(NULL::text),
        array_agg(NULL::text), array_agg(NULL::bytea), array_agg(updated_at))
    FROM written_new HAVING count(*) > 0;
    RETURN NULL;
END
$$;

CREATE FUNCTION prefs_record_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') <> 'on' THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_record_history(array_agg(n.account), array_agg(n.suite), array_agg(n.key),
        array_agg(n.type), array_agg(n.value), array_agg(n.bytes), array_agg(o.type),
        array_agg(o.value), array_agg(o.bytes), array_agg(n.updated_at))
    FROM written_new AS n JOIN written_old AS o
        ON o.account = n.account AND o.suite = n.suite AND o.key = n.key
    WHERE NOT (n.type = o.type AND n.value IS NOT DISTINCT FROM o.value
        AND n.bytes IS NOT DISTINCT FROM o.bytes)
    HAVING count(*) > 0;
    RETURN NULL;
END
$$;

CREATE FUNCTION prefs_record_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('prefs.sync_applying', true), '') <> 'on' THEN
        RETURN NULL;
    END IF;
    PERFORM prefs_record_history(array_agg(account), array_agg(suite), array_agg(key),
        array_agg(NULL::text), array_agg(NULL::text), array_agg(NULL::bytea), array_agg(type),
        array_agg(value), array_agg(bytes),
        array_agg(extract(epoch FROM clock_timestamp()) - 978307200))
    FROM written_old HAVING count(*) > 0;
    RETURN NULL;
END
$$;

DROP TRIGGER preference_history_record ON preference;
DROP FUNCTION prefs_record_change();
CREATE TRIGGER preference_history_record AFTER INSERT OR UPDATE OR DELETE ON preference
    FOR EACH ROW EXECUTE FUNCTION prefs_record_row();
CREATE TRIGGER preference_history_inserted AFTER INSERT ON preference
    REFERENCING NEW TABLE AS written_new
    FOR EACH STATEMENT EXECUTE FUNCTION prefs_record_inserted();
CREATE TRIGGER preference_history_updated AFTER UPDATE ON preference
    REFERENCING OLD TABLE AS written_old NEW TABLE AS written_new
    FOR EACH STATEMENT EXECUTE FUNCTION prefs_record_updated();
CREATE TRIGGER preference_history_deleted AFTER DELETE ON preference
    REFERENCING OLD TABLE AS written_old
    FOR EACH STATEMENT EXECUTE FUNCTION prefs_record_deleted();

-- Turns stamping on for an account and stamps what it holds that sync has no field of
-- (a server's data from before any device came): the hub's clock, this transaction's
-- number. Run by the first contact of a device, under the account's sync lock.
CREATE FUNCTION prefs_sync_start(owner text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    number bigint;
    start_clock text;
    started boolean;
BEGIN
    number := prefs_sync_number(owner);
    INSERT INTO prefs_account_state (account) VALUES (owner) ON CONFLICT (account) DO NOTHING;
    UPDATE prefs_account_state SET sync_on = true WHERE account = owner AND NOT sync_on
        RETURNING true INTO started;
    IF started IS NULL THEN
        RETURN false;
    END IF;
    SELECT prefs_sync_next_clock(prefs_sync_now_ms(), greatest(
        (SELECT max(s.clock) FROM sync_change AS s WHERE s.account = owner),
        sync_horizon_clock))
    INTO start_clock FROM prefs_account_state WHERE account = owner;
    INSERT INTO sync_change (account, entity, ident, field, clock, device, present, sequence,
        suite, key)
    SELECT owner, 'preference', prefs_sync_name(p.suite) || '.' || prefs_sync_name(p.key),
        'value', start_clock, 'hub', true, number, p.suite, p.key
    FROM preference AS p WHERE p.account = owner AND NOT EXISTS (
        SELECT 1 FROM preference_declaration AS d WHERE d.account = owner
            AND d.suite = p.suite AND d.key = p.key AND d.device_local)
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO NOTHING;
    INSERT INTO sync_change (account, entity, ident, field, clock, device, present, type,
        value, sequence)
    SELECT owner, 'bookmark', prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id),
        f.field, start_clock, 'hub', true, f.type, f.value, number
    FROM bookmark AS b CROSS JOIN LATERAL (VALUES
        ('exists', NULL, NULL),
        ('title', 'string', b.title),
        ('url', CASE WHEN b.url IS NOT NULL THEN 'string' END, b.url),
        ('category', CASE WHEN b.category IS NOT NULL THEN 'string' END, b.category),
        ('note', CASE WHEN b.note IS NOT NULL THEN 'string' END, b.note),
        ('position', 'int', b.position::text),
        ('folder', 'string', prefs_sync_folder(owner, b.folder_id, b.category))
    ) AS f (field, type, value)
    WHERE b.account = owner
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO NOTHING;
    INSERT INTO sync_change (account, entity, ident, field, clock, device, present, sequence)
    SELECT owner, 'tag', prefs_sync_name(b.kind) || '.' || prefs_sync_name(b.item_id) || '.'
        || prefs_sync_name(t.tag), 'present', start_clock, 'hub', true, number
    FROM bookmark_tag AS t JOIN bookmark AS b ON b.account = t.account AND b.id = t.bookmark_id
    WHERE t.account = owner
    ON CONFLICT ON CONSTRAINT sync_change_pkey DO NOTHING;
    RETURN true;
END
$$;

-- A hub from before this file: accounts that synced keep syncing, their synced values move
-- into the engine's tables (sync's, the devices' data, wins over the server's where both
-- have a preference; the server's others reach the devices, stamped below), and their
-- bookmarks are built from their fields on the next contact of a device.
ALTER TABLE sync_change NO FORCE ROW LEVEL SECURITY;
ALTER TABLE preference NO FORCE ROW LEVEL SECURITY;
ALTER TABLE prefs_account_state NO FORCE ROW LEVEL SECURITY;
ALTER TABLE preference_declaration NO FORCE ROW LEVEL SECURITY;

UPDATE sync_change SET
    suite = convert_from(decode(split_part(ident, '.', 1), 'hex'), 'UTF8'),
    key = convert_from(decode(split_part(ident, '.', 2), 'hex'), 'UTF8')
WHERE entity = 'preference'
    AND public.prefs_sync_problem(entity, ident, field, clock, present, type, value, bytes)
        IS NULL;
-- Rows that break the rules were never pulled by anyone: they go.
DELETE FROM sync_change WHERE entity = 'preference' AND suite IS NULL;

SELECT set_config('prefs.sync_applying', 'on', true);
INSERT INTO preference (account, suite, key, type, value, bytes, updated_at)
SELECT account, suite, key, type, value, bytes,
    left(clock, 15)::bigint / 1000.0 - 978307200
FROM sync_change WHERE entity = 'preference' AND present
ON CONFLICT (account, suite, key) DO UPDATE SET
    type = excluded.type, value = excluded.value, bytes = excluded.bytes,
    updated_at = excluded.updated_at;
DELETE FROM preference AS p USING sync_change AS s
WHERE s.entity = 'preference' AND NOT s.present AND p.account = s.account
    AND p.suite = s.suite AND p.key = s.key;
UPDATE sync_change SET type = NULL, value = NULL, bytes = NULL WHERE entity = 'preference';
SELECT set_config('prefs.sync_applying', '', true);

INSERT INTO prefs_account_state (account)
SELECT DISTINCT account FROM sync_change ON CONFLICT (account) DO NOTHING;
UPDATE prefs_account_state AS a SET sync_rebuild = true
WHERE EXISTS (SELECT 1 FROM sync_change AS s WHERE s.account = a.account
    AND s.entity <> 'preference');
SELECT prefs_sync_start(account) FROM prefs_account_state AS a
WHERE EXISTS (SELECT 1 FROM sync_change AS s WHERE s.account = a.account)
    OR EXISTS (SELECT 1 FROM sync_device AS d WHERE d.account = a.account);

ALTER TABLE sync_change FORCE ROW LEVEL SECURITY;
ALTER TABLE preference FORCE ROW LEVEL SECURITY;
ALTER TABLE prefs_account_state FORCE ROW LEVEL SECURITY;
ALTER TABLE preference_declaration FORCE ROW LEVEL SECURITY;

-- Every row stored in sync_change is numbered by the transaction's number, under the
-- account's sync lock, however it was written: a row an account's role writes by hand cannot
-- carry a number of its choosing (one behind other devices' cursors would never be pulled)
-- or commit out of turn.
-- The clock bound is checked here too, row by row, in place of the statement-level triggers
-- of 0006 (a statement-level trigger with a transition table costs more than a stamp of one
-- field, which the server's writes make one at a time).
CREATE FUNCTION prefs_sync_numbered() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- A push checks its rows' clocks and numbers them itself, for all of them at once.
    IF coalesce(current_setting('prefs.sync_applying', true), '') = 'on' THEN
        RETURN NEW;
    END IF;
    IF NEW.clock ~ '^[0-9]{15}-' AND left(NEW.clock, 15)::bigint > prefs_sync_clock_limit() THEN
        RAISE EXCEPTION 'the clock % is ahead of the hub''s by more than the bound', NEW.clock
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.sequence := prefs_sync_number(NEW.account);
    RETURN NEW;
END
$$;

DROP TRIGGER sync_change_clock_bound_inserted ON sync_change;
DROP TRIGGER sync_change_clock_bound_updated ON sync_change;
DROP FUNCTION prefs_sync_clock_bound();

CREATE TRIGGER sync_change_numbered BEFORE INSERT OR UPDATE ON sync_change
    FOR EACH ROW EXECUTE FUNCTION prefs_sync_numbered();

GRANT EXECUTE ON FUNCTION prefs_sync_name(text), prefs_sync_number(text),
    prefs_sync_next_clock(bigint, text), prefs_sync_now_ms(), prefs_sync_stamping(text),
    prefs_sync_stamp(text, text, text, text, boolean, text, text, text, text),
    prefs_sync_folder(text, bigint, text), prefs_sync_start(text),
    prefs_record_history(text[], text[], text[], text[], text[], bytea[], text[], text[],
        bytea[], double precision[])
    TO prefs_account, prefs_service;

-- Every function of the schema pins its search_path, these too.
DO $pin$
DECLARE
    fn regprocedure;
BEGIN
    FOR fn IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname LIKE 'prefs\_%' AND p.proconfig IS NULL
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
    END LOOP;
END
$pin$;
