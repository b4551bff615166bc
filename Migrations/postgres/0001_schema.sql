-- The PostgreSQL schema of prefs: the tables of the SQLite schema, each row owned by an
-- account, isolated by row-level security.
--
-- Roles (cluster-wide, created once):
--   prefs_account  a login role in it sees and changes only the rows of the account named
--                  after the role (CREATE ROLE alice LOGIN IN ROLE prefs_account).
--   prefs_service  a trusted role (a server app) that acts for any account; it names one per
--                  session with SET prefs.account = 'alice'.
-- Values: bool 'true'/'false', int decimal, double its shortest exact text, string and url
-- and json text, date seconds since 2001-01-01 UTC as exact text (all in `value`); data,
-- array and dictionary bytes (a binary property list for the last two) in `bytes`.

-- Roles belong to the whole server: another database's first migration may be making them
-- at the same moment.
-- An owner without CREATEROLE migrates once an administrator made them (the README's set-up):
-- only missing roles are created.
DO $roles$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'prefs_account') THEN
        BEGIN
            CREATE ROLE prefs_account NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'prefs_service') THEN
        BEGIN
            CREATE ROLE prefs_service NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
END
$roles$;

-- Search ignores case and diacritics, as the SQLite engine's unicode61 tokenizer does.
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;

CREATE FUNCTION prefs_search_vector(text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('simple', public.unaccent('public.unaccent'::regdictionary, $1))
$$;

CREATE FUNCTION prefs_search_query(text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsquery('simple', public.unaccent('public.unaccent'::regdictionary, $1))
$$;

-- The account this session acts for: its own role's name, or for a service role the
-- account it chose (NULL, so no row at all, when it chose none).
CREATE FUNCTION prefs_current_account() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN pg_has_role(current_user, 'prefs_service', 'MEMBER')
            THEN nullif(current_setting('prefs.account', true), '')
        ELSE current_user::text
    END
$$;

-- Per account: the newest change id (ids are dense per account) and the history limit.
CREATE TABLE prefs_account_state (
    account text PRIMARY KEY DEFAULT prefs_current_account(),
    last_change bigint NOT NULL DEFAULT 0,
    history_limit integer NOT NULL DEFAULT 10000 CHECK (history_limit >= 0)
);

CREATE TABLE preference (
    account text NOT NULL DEFAULT prefs_current_account(),
    suite text NOT NULL,
    key text NOT NULL,
    type text NOT NULL CHECK (type IN (
        'bool', 'int', 'double', 'string', 'url', 'date', 'data', 'array', 'dictionary', 'json'
    )),
    value text,
    bytes bytea,
    updated_at double precision NOT NULL,
    PRIMARY KEY (account, suite, key),
    CHECK ((bytes IS NULL) = (type NOT IN ('data', 'array', 'dictionary'))),
    CHECK ((value IS NULL) = (type IN ('data', 'array', 'dictionary')))
);

CREATE TABLE preference_declaration (
    account text NOT NULL DEFAULT prefs_current_account(),
    suite text NOT NULL,
    key text NOT NULL,
    type text NOT NULL CHECK (type IN (
        'bool', 'int', 'double', 'string', 'url', 'date', 'data', 'array', 'dictionary', 'json'
    )),
    default_value text,
    default_bytes bytea,
    description text,
    PRIMARY KEY (account, suite, key)
);

-- One row per change; type, value and bytes are NULL when the key was removed.
CREATE TABLE preference_history (
    account text NOT NULL DEFAULT prefs_current_account(),
    id bigint NOT NULL,
    suite text NOT NULL,
    key text NOT NULL,
    type text,
    value text,
    bytes bytea,
    old_type text,
    old_value text,
    old_bytes bytea,
    changed_at double precision NOT NULL,
    PRIMARY KEY (account, id)
);

CREATE INDEX preference_history_by_key ON preference_history (account, suite, key, id);

-- Records each change of a value (not a write of the same value), prunes the history to
-- its limit (always keeping the newest row: other connections learn of changes from it),
-- and notifies the account's channel at commit.
CREATE FUNCTION prefs_record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    owner text;
    next_id bigint;
    kept integer;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.type = OLD.type AND NEW.value IS NOT DISTINCT FROM OLD.value
        AND NEW.bytes IS NOT DISTINCT FROM OLD.bytes THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN owner := OLD.account; ELSE owner := NEW.account; END IF;
    INSERT INTO prefs_account_state (account) VALUES (owner) ON CONFLICT (account) DO NOTHING;
    UPDATE prefs_account_state SET last_change = last_change + 1 WHERE account = owner
        RETURNING last_change, history_limit INTO next_id, kept;
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
    DELETE FROM preference_history
        WHERE account = owner AND id <= next_id - greatest(kept, 1);
    -- One notification per channel and transaction: PostgreSQL folds identical ones.
    PERFORM pg_notify('prefs:' || owner, '');
    RETURN NULL;
END
$$;

CREATE TRIGGER preference_history_record
    AFTER INSERT OR UPDATE OR DELETE ON preference
    FOR EACH ROW EXECUTE FUNCTION prefs_record_change();

-- A declaration changes what a key without a value reads: caches hear of it too.
CREATE FUNCTION prefs_notify_declaration() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('prefs:' || OLD.account, '');
    ELSE
        PERFORM pg_notify('prefs:' || NEW.account, '');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER preference_declaration_notify
    AFTER INSERT OR UPDATE OR DELETE ON preference_declaration
    FOR EACH ROW EXECUTE FUNCTION prefs_notify_declaration();

CREATE TABLE selection (
    account text NOT NULL DEFAULT prefs_current_account(),
    name text NOT NULL,
    selected_index integer,
    count integer NOT NULL CHECK (count >= 0),
    policy text NOT NULL CHECK (policy IN ('clamp', 'wrap', 'optional')),
    item_id text,
    updated_at double precision NOT NULL,
    PRIMARY KEY (account, name),
    CHECK (selected_index IS NULL OR (selected_index >= 0 AND selected_index < count)),
    CHECK (selected_index IS NOT NULL OR policy = 'optional' OR count = 0)
);

CREATE TABLE bookmark_folder (
    account text NOT NULL DEFAULT prefs_current_account(),
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    parent_id bigint REFERENCES bookmark_folder (id) ON DELETE CASCADE,
    name text NOT NULL,
    description text,
    position integer NOT NULL,
    created_at double precision,
    updated_at double precision
);

CREATE INDEX bookmark_folder_by_parent ON bookmark_folder (account, parent_id, position);

CREATE TABLE bookmark (
    account text NOT NULL DEFAULT prefs_current_account(),
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    kind text NOT NULL CHECK (kind <> ''),
    item_id text NOT NULL CHECK (item_id <> ''),
    title text NOT NULL,
    url text,
    category text,
    note text,
    position integer NOT NULL CHECK (position >= 0),
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    folder_id bigint REFERENCES bookmark_folder (id) ON DELETE SET NULL,
    -- What search reads: title, category, tags (distinct, in byte order), note and url.
    search_text text NOT NULL DEFAULT '',
    UNIQUE (account, kind, item_id)
);

CREATE INDEX bookmark_by_position ON bookmark (account, kind, position);
CREATE INDEX bookmark_by_category ON bookmark (account, category, kind, position);
CREATE INDEX bookmark_search_index ON bookmark USING gin (prefs_search_vector(search_text));

CREATE TABLE bookmark_tag (
    account text NOT NULL DEFAULT prefs_current_account(),
    bookmark_id bigint NOT NULL REFERENCES bookmark (id) ON DELETE CASCADE,
    tag text NOT NULL,
    PRIMARY KEY (bookmark_id, tag)
);

CREATE INDEX bookmark_tag_by_tag ON bookmark_tag (account, tag);

-- Isolation: every table, its owner included, sees only the current account's rows.
DO $isolation$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY[
        'prefs_account_state', 'preference', 'preference_declaration', 'preference_history',
        'selection', 'bookmark_folder', 'bookmark', 'bookmark_tag'
    ] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', name);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', name);
        EXECUTE format(
            'CREATE POLICY account_rows ON %I USING (account = (SELECT prefs_current_account()))'
            ' WITH CHECK (account = (SELECT prefs_current_account()))', name);
        EXECUTE format(
            'GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO prefs_account, prefs_service', name);
    END LOOP;
END
$isolation$;

GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO prefs_account, prefs_service;
-- Every role reads the schema version (the migrator made this table before this file ran).
GRANT SELECT ON prefs_schema_migration TO prefs_account, prefs_service;
GRANT EXECUTE ON FUNCTION prefs_current_account(), prefs_search_vector(text),
    prefs_search_query(text) TO prefs_account, prefs_service;
