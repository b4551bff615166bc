-- The hub refuses malformed changes and clocks too far ahead, one change at a time (README
-- "Sync"). The rules are those of the devices (Sources/PrefsKit/Sync/SyncValidation.swift):
-- a hybrid clock in its one spelling, idents of hex-encoded UTF-8 names, the rulebook's key
-- and suite names, the fields and value types of each entity, a size limit. A push reports
-- each refused change to its device; a row written into sync_change by any other means is
-- held to the same rules by a constraint and a trigger.

-- How far ahead of the hub's clock a change may be stamped. One row; the owner changes it
-- (UPDATE prefs_sync_config SET clock_bound_ms = 600000), accounts read it.
CREATE TABLE prefs_sync_config (
    one_row boolean PRIMARY KEY DEFAULT true CHECK (one_row),
    clock_bound_ms bigint NOT NULL DEFAULT 300000 CHECK (clock_bound_ms >= 0)
);
INSERT INTO prefs_sync_config DEFAULT VALUES;
GRANT SELECT ON prefs_sync_config TO prefs_account, prefs_service;

-- The hub's clock, as a hybrid clock's milliseconds, and the latest a change may carry.
CREATE FUNCTION prefs_sync_clock_limit() RETURNS bigint
LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
    SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        + (SELECT clock_bound_ms FROM public.prefs_sync_config)
$$;

-- Why a change cannot be stored; NULL when it can. The clock's bound is apart (it moves).
-- Everything is inline (no calls of other functions, non-capturing groups in the patterns):
-- it runs for every row a push stores, twice (the push's filter and the constraint).
CREATE FUNCTION prefs_sync_problem(entity text, ident text, field text, clock text,
    present boolean, type text, value text, bytes bytea) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
DECLARE
    -- Well-formed UTF-8 with no NUL, in whole bytes, as hex.
    utf8 constant text := '^(?:0[1-9A-F]|[1-7][0-9A-F]|(?:C[2-9A-F]|D[0-9A-F])[89AB][0-9A-F]'
        '|E0[AB][0-9A-F][89AB][0-9A-F]|E[1-9A-CEF][89AB][0-9A-F][89AB][0-9A-F]'
        '|ED[89][0-9A-F][89AB][0-9A-F]|F0[9AB][0-9A-F][89AB][0-9A-F][89AB][0-9A-F]'
        '|F[1-3][89AB][0-9A-F][89AB][0-9A-F][89AB][0-9A-F]'
        '|F4[89][0-9A-F][89AB][0-9A-F][89AB][0-9A-F])*$';
    -- Unicode's White_Space, as Swift's isWhitespace.
    blank constant text := E'^[\\u0009-\\u000D\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]*$';
    -- Control characters but a tab.
    control constant text := E'[\\u0001-\\u0008\\u000A-\\u001F]';
    names text[] := '{}';
    part text;
    name text;
    nouns text[];
    number numeric;
BEGIN
    IF clock IS NULL OR clock !~ '^[0-9]{15}-[0-9]{6}-[0-9a-z]{1,64}$' THEN
        RETURN 'the clock is not a hybrid clock reading';
    END IF;
    IF octet_length(ident) > 3 * 2048 + 2 THEN
        RETURN 'the ident is not hex-encoded names';
    END IF;
    FOREACH part IN ARRAY string_to_array(ident, '.') LOOP
        -- ASCII names (most) take the short pattern.
        IF part !~ '^(?:0[1-9A-F]|[1-7][0-9A-F])*$' AND part !~ utf8 THEN
            RETURN 'the ident is not hex-encoded names';
        END IF;
        names := names || convert_from(decode(part, 'hex'), 'UTF8');
    END LOOP;
    IF coalesce(octet_length(value), 0) > 4194304 OR coalesce(length(bytes), 0) > 4194304 THEN
        RETURN 'the value is too large';
    END IF;
    IF entity = 'preference' THEN
        IF cardinality(names) <> 2 THEN
            RETURN 'a preference''s ident names a suite and a key';
        END IF;
        IF field <> 'value' THEN
            RETURN 'a preference has no field ''' || field || '''';
        END IF;
        -- The rulebook: 1 to 1,024 bytes, no NUL (the hex has none) or newline.
        FOR i IN 1 .. 2 LOOP
            name := names[i];
            IF octet_length(name) = 0 OR octet_length(name) > 1024 OR strpos(name, E'\n') > 0
            THEN
                RETURN 'the ' || (ARRAY['suite name', 'key'])[i]
                    || ' breaks the rulebook (1 to 1024 bytes, no NUL or newline)';
            END IF;
        END LOOP;
        IF NOT present THEN
            RETURN CASE WHEN type IS NULL AND value IS NULL AND bytes IS NULL THEN NULL
                ELSE 'a removal carries no value' END;
        END IF;
        IF type IN ('data', 'array', 'dictionary') THEN
            RETURN CASE WHEN bytes IS NOT NULL AND value IS NULL THEN NULL
                ELSE 'a ' || type || ' value is bytes' END;
        END IF;
        IF value IS NULL OR bytes IS NOT NULL THEN
            RETURN 'a preference''s change carries a value';
        END IF;
        CASE type
        WHEN 'bool' THEN
            RETURN CASE WHEN value IN ('true', 'false') THEN NULL ELSE 'not a bool' END;
        WHEN 'int' THEN
            IF value !~ '^-?[0-9]{1,19}$' THEN
                RETURN 'not an int';
            END IF;
            number := value::numeric;
            RETURN CASE WHEN number BETWEEN -9223372036854775808 AND 9223372036854775807
                THEN NULL ELSE 'not an int' END;
        WHEN 'double', 'float', 'date' THEN
            RETURN CASE
                WHEN value ~ '^(?:-?[0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]+)?|-?inf|-?nan)$' THEN NULL
                ELSE 'not a ' || type END;
        WHEN 'string', 'url' THEN
            RETURN NULL;
        WHEN 'json' THEN
            BEGIN
                PERFORM value::jsonb;
                RETURN NULL;
            EXCEPTION WHEN OTHERS THEN
                RETURN 'not valid JSON';
            END;
        ELSE
            RETURN 'no such type';
        END CASE;
    END IF;
    IF entity = 'bookmark' THEN
        nouns := ARRAY['kind', 'item ID'];
        IF cardinality(names) <> 2 THEN
            RETURN 'a bookmark''s ident names a kind and an item ID';
        END IF;
    ELSIF entity = 'tag' THEN
        nouns := ARRAY['kind', 'item ID', 'tag'];
        IF cardinality(names) <> 3 THEN
            RETURN 'a tag''s ident names a kind, an item ID and a tag';
        END IF;
    ELSE
        RETURN 'no such entity';
    END IF;
    -- A bookmark's kind, item ID and tag (and below, folder names): not blank, no control
    -- character but a tab.
    FOR i IN 1 .. cardinality(names) LOOP
        IF names[i] ~ blank THEN
            RETURN 'a bookmark''s ' || nouns[i] || ' cannot be empty';
        END IF;
        IF names[i] ~ control THEN
            RETURN 'a bookmark''s ' || nouns[i] || ' cannot contain control characters';
        END IF;
    END LOOP;
    IF entity = 'tag' THEN
        IF field <> 'present' THEN
            RETURN 'a tag has no field ''' || field || '''';
        END IF;
        RETURN CASE WHEN type IS NULL AND value IS NULL AND bytes IS NULL THEN NULL
            ELSE 'a tag''s change carries no value' END;
    END IF;
    IF field NOT IN ('exists', 'title', 'url', 'category', 'note', 'position', 'folder') THEN
        RETURN 'a bookmark has no field ''' || field || '''';
    END IF;
    IF field = 'exists' OR NOT present THEN
        RETURN CASE WHEN type IS NULL AND value IS NULL AND bytes IS NULL THEN NULL
            ELSE 'the bookmark field ''' || field || ''' carries no value' END;
    END IF;
    IF bytes IS NOT NULL THEN
        RETURN 'a bookmark''s ' || field || ' is text';
    END IF;
    IF field = 'position' THEN
        IF type IS DISTINCT FROM 'int' OR value !~ '^[0-9]{1,10}$' THEN
            RETURN 'a bookmark''s position is an integer';
        END IF;
        RETURN CASE WHEN value::bigint <= 2147483647 THEN NULL
            ELSE 'the position is out of range' END;
    END IF;
    -- A folder is read when pushed: no value for a bookmark gone meanwhile.
    IF value IS NULL THEN
        RETURN NULL;
    END IF;
    IF type IS DISTINCT FROM 'string' THEN
        RETURN 'a bookmark''s ' || field || ' is text';
    END IF;
    IF field = 'folder' THEN
        IF value = '' THEN
            RETURN NULL;
        END IF;
        FOREACH part IN ARRAY string_to_array(value, '.') LOOP
            IF part !~ '^(?:0[1-9A-F]|[1-7][0-9A-F])*$' AND part !~ utf8 THEN
                RETURN 'a bookmark''s folder is hex-encoded names';
            END IF;
            name := convert_from(decode(part, 'hex'), 'UTF8');
            IF name ~ blank THEN
                RETURN 'a bookmark''s folder name cannot be empty';
            END IF;
            IF name ~ control THEN
                RETURN 'a bookmark''s folder name cannot contain control characters';
            END IF;
        END LOOP;
        RETURN NULL;
    END IF;
    IF field IN ('title', 'category') AND value ~ control THEN
        RETURN 'a bookmark''s ' || field || ' cannot contain control characters';
    END IF;
    RETURN NULL;
END
$$;

GRANT EXECUTE ON FUNCTION prefs_sync_clock_limit(),
    prefs_sync_problem(text, text, text, text, boolean, text, text, bytea)
    TO prefs_account, prefs_service;

-- A row written into the table by other means than a push (the account's role may) keeps
-- the structure: a clock reading, an ident of hex names, a field of its entity, the size
-- limit; rows already on a hub are left as they are. The full rules are the push's to check
-- (prefs_sync_problem above, per change) and every device's on pull: a row that keeps the
-- structure and breaks a rule is skipped and recorded by each device, and stops nobody.
-- Cheap on purpose: it runs for every row a push stores.
ALTER TABLE sync_change ADD CONSTRAINT sync_change_well_formed CHECK (
    clock ~ '^[0-9]{15}-[0-9]{6}-[0-9a-z]{1,64}$'
    AND octet_length(ident) <= 3 * 2048 + 2
    AND ident ~ '^(?:[0-9A-F]{2})+(?:\.(?:[0-9A-F]{2})+){1,2}$'
    AND CASE entity
        WHEN 'preference' THEN field = 'value'
        WHEN 'tag' THEN field = 'present'
        WHEN 'bookmark' THEN
            field IN ('exists', 'title', 'url', 'category', 'note', 'position', 'folder')
        ELSE false END
    AND coalesce(octet_length(value), 0) <= 4194304
    AND coalesce(length(bytes), 0) <= 4194304
) NOT VALID;

-- The clock bound, once per statement over the rows it stored (a trigger per row would
-- read the hub's clock and bound for each).
CREATE FUNCTION prefs_sync_clock_bound() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
    clock_limit constant bigint := public.prefs_sync_clock_limit();
    ahead text;
BEGIN
    SELECT clock INTO ahead FROM stored
    WHERE clock ~ '^[0-9]{15}-' AND left(clock, 15)::bigint > clock_limit
    LIMIT 1;
    IF ahead IS NOT NULL THEN
        RAISE EXCEPTION 'the clock % is ahead of the hub''s by more than the bound', ahead
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER sync_change_clock_bound_inserted AFTER INSERT ON sync_change
    REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION prefs_sync_clock_bound();
CREATE TRIGGER sync_change_clock_bound_updated AFTER UPDATE ON sync_change
    REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION prefs_sync_clock_bound();
