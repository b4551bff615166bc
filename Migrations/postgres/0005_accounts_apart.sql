-- Accounts apart in everything the schema decides (README "Server: what accounts share"):
--   * every key, unique constraint and foreign key includes the account, so no account
--     learns of another's rows from a conflict, nor makes another's insert vanish or fail;
--   * bookmark and folder ids are numbered per account by the server: no account can take
--     or foresee the ids of another (an id given by an import is kept, and numbering goes on
--     after it);
--   * notifications go to a channel per account whose name is a random token, readable only
--     through the account's own row (row-level security), so no account can listen to
--     another's commits;
--   * the group roles are not accounts, and every function pins its search_path, so that a
--     caller's search_path (a writable public schema) cannot change what they call.

-- The owner opens the tables of every account for the duration of this migration (forced
-- row-level security applies to it too); forced again at the end.
DO $open$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['prefs_account_state', 'bookmark_folder', 'bookmark',
        'bookmark_tag'] LOOP
        EXECUTE format('ALTER TABLE %I NO FORCE ROW LEVEL SECURITY', name);
    END LOOP;
END
$open$;

CREATE OR REPLACE FUNCTION prefs_current_account() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE
        -- The group roles themselves (SET ROLE prefs_account) act for no account.
        WHEN current_user IN ('prefs_account', 'prefs_service') THEN NULL
        WHEN pg_catalog.pg_has_role(current_user, 'prefs_service', 'MEMBER')
            THEN nullif(pg_catalog.current_setting('prefs.account', true), '')
        ELSE current_user::text
    END
$$;

-- Per account: the last bookmark and folder ids given, and the notification channel.
ALTER TABLE prefs_account_state
    ADD COLUMN last_bookmark_id bigint NOT NULL DEFAULT 0,
    ADD COLUMN last_folder_id bigint NOT NULL DEFAULT 0,
    ADD COLUMN channel text NOT NULL
        DEFAULT 'prefs:' || replace(gen_random_uuid()::text, '-', '');

INSERT INTO prefs_account_state (account)
    SELECT account FROM bookmark UNION SELECT account FROM bookmark_folder
    ON CONFLICT (account) DO NOTHING;
UPDATE prefs_account_state AS s SET last_bookmark_id = m.top
    FROM (SELECT account, max(id) AS top FROM bookmark GROUP BY account) AS m
    WHERE s.account = m.account;
UPDATE prefs_account_state AS s SET last_folder_id = m.top
    FROM (SELECT account, max(id) AS top FROM bookmark_folder GROUP BY account) AS m
    WHERE s.account = m.account;

-- Keys with the account in them.
ALTER TABLE bookmark_tag DROP CONSTRAINT bookmark_tag_pkey,
    DROP CONSTRAINT bookmark_tag_bookmark_id_fkey;
ALTER TABLE bookmark DROP CONSTRAINT bookmark_folder_id_fkey;
ALTER TABLE bookmark_folder DROP CONSTRAINT bookmark_folder_parent_id_fkey;
ALTER TABLE bookmark DROP CONSTRAINT bookmark_pkey;
ALTER TABLE bookmark_folder DROP CONSTRAINT bookmark_folder_pkey;
ALTER TABLE bookmark ALTER COLUMN id DROP IDENTITY;
ALTER TABLE bookmark_folder ALTER COLUMN id DROP IDENTITY;
ALTER TABLE bookmark ADD PRIMARY KEY (account, id);
ALTER TABLE bookmark_folder ADD PRIMARY KEY (account, id);
ALTER TABLE bookmark_folder ADD FOREIGN KEY (account, parent_id)
    REFERENCES bookmark_folder (account, id) ON DELETE CASCADE;
ALTER TABLE bookmark ADD FOREIGN KEY (account, folder_id)
    REFERENCES bookmark_folder (account, id) ON DELETE SET NULL (folder_id);
ALTER TABLE bookmark_tag ADD PRIMARY KEY (account, bookmark_id, tag);
ALTER TABLE bookmark_tag ADD FOREIGN KEY (account, bookmark_id)
    REFERENCES bookmark (account, id) ON DELETE CASCADE;

-- Ids per account, given by the server.
CREATE FUNCTION prefs_assign_id() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    assigned bigint;
BEGIN
    INSERT INTO prefs_account_state (account) VALUES (NEW.account)
        ON CONFLICT (account) DO NOTHING;
    IF TG_TABLE_NAME = 'bookmark' THEN
        UPDATE prefs_account_state
            SET last_bookmark_id = greatest(last_bookmark_id + 1, coalesce(NEW.id, 0))
            WHERE account = NEW.account RETURNING last_bookmark_id INTO assigned;
    ELSE
        UPDATE prefs_account_state
            SET last_folder_id = greatest(last_folder_id + 1, coalesce(NEW.id, 0))
            WHERE account = NEW.account RETURNING last_folder_id INTO assigned;
    END IF;
    NEW.id := coalesce(NEW.id, assigned);
    RETURN NEW;
END
$$;

CREATE TRIGGER bookmark_assign_id BEFORE INSERT ON bookmark
    FOR EACH ROW EXECUTE FUNCTION prefs_assign_id();
CREATE TRIGGER bookmark_folder_assign_id BEFORE INSERT ON bookmark_folder
    FOR EACH ROW EXECUTE FUNCTION prefs_assign_id();

-- Notifications on the account's own channel.
CREATE OR REPLACE FUNCTION prefs_record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    owner text;
    next_id bigint;
    kept integer;
    account_channel text;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.type = OLD.type AND NEW.value IS NOT DISTINCT FROM OLD.value
        AND NEW.bytes IS NOT DISTINCT FROM OLD.bytes THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN owner := OLD.account; ELSE owner := NEW.account; END IF;
    INSERT INTO prefs_account_state (account) VALUES (owner) ON CONFLICT (account) DO NOTHING;
    UPDATE prefs_account_state SET last_change = last_change + 1 WHERE account = owner
        RETURNING last_change, history_limit, channel INTO next_id, kept, account_channel;
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
    -- One notification per channel and transaction: PostgreSQL folds identical ones.
    PERFORM pg_notify(account_channel, '');
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION prefs_notify_declaration() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    owner text;
    account_channel text;
BEGIN
    IF TG_OP = 'DELETE' THEN owner := OLD.account; ELSE owner := NEW.account; END IF;
    INSERT INTO prefs_account_state (account) VALUES (owner) ON CONFLICT (account) DO NOTHING;
    SELECT channel INTO account_channel FROM prefs_account_state WHERE account = owner;
    PERFORM pg_notify(account_channel, '');
    RETURN NULL;
END
$$;

-- The channel of the session's account, made on first need (a read-only session too: the
-- statement runs in a read-write transaction of its own).
CREATE FUNCTION prefs_account_channel() RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    found_channel text;
BEGIN
    INSERT INTO prefs_account_state (account) VALUES (prefs_current_account())
        ON CONFLICT (account) DO NOTHING;
    SELECT channel INTO found_channel FROM prefs_account_state
        WHERE account = prefs_current_account();
    RETURN found_channel;
END
$$;

GRANT EXECUTE ON FUNCTION prefs_account_channel() TO prefs_account, prefs_service;

-- Every function of the schema pins its search_path: the catalog first, then this schema.
DO $pin$
DECLARE
    fn regprocedure;
BEGIN
    FOR fn IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = pg_catalog.current_schema()::regnamespace
            AND p.proname LIKE 'prefs\_%'
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
    END LOOP;
END
$pin$;

DO $close$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['prefs_account_state', 'bookmark_folder', 'bookmark',
        'bookmark_tag'] LOOP
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', name);
    END LOOP;
END
$close$;
