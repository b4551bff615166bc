-- A push's transaction opens its sync once (issue: the hub's CPU per synced change).
--
-- prefs_sync_begin did all of its work at every call: the account checked twice (itself,
-- then again in prefs_sync_start), the account's state written (an INSERT ... ON CONFLICT
-- and an UPDATE) to learn that stamping was on already, the transaction's row looked up
-- twice. A device's push calls it twice in one transaction: the opening call, which reads
-- whether the account's bookmarks are to be rebuilt, and prefs_sync_push's own. And the
-- number's function cleared the rows of finished transactions at every push. Now:
--
-- 1. A second call in the same transaction for the same account finds the transaction's
--    row with its token: only prefs_sync_begin writes the token, after the account's check,
--    and no role but the owner writes that table, so the row is the proof that this
--    transaction was let act for the account. The call sets the two settings again (a
--    client may have changed them between the calls) and answers.
-- 2. The first call checks the account once, and turns stamping on only when the
--    account's state says it is off (it never goes back to off); prefs_sync_start checks
--    again, and takes the lock before it writes, as before.
-- 3. The rows of finished transactions are cleared at one number in 32: they are never
--    read again (a transaction's id is never reused), only kept small.
CREATE OR REPLACE FUNCTION prefs_sync_begin(owner text, OUT number bigint,
    OUT rebuild boolean)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
DECLARE
    token text;
BEGIN
    SELECT t.number, t.applying INTO number, token FROM prefs_sync_transaction AS t
    WHERE t.xid = pg_current_xact_id() AND t.account = owner;
    IF token IS NULL THEN
        PERFORM prefs_sync_acting(owner);
        IF NOT coalesce((SELECT a.sync_on FROM prefs_account_state AS a
                WHERE a.account = owner), false) THEN
            PERFORM prefs_sync_start(owner);
        END IF;
        number := prefs_sync_take_number(owner);
        token := replace(gen_random_uuid()::text, '-', '');
        UPDATE prefs_sync_transaction SET applying = token
        WHERE xid = pg_current_xact_id() AND account = owner;
    ELSIF current_setting('prefs.account', true) IS DISTINCT FROM owner THEN
        PERFORM set_config('prefs.account', owner, true);
    END IF;
    PERFORM set_config('prefs.sync_applying', token, true);
    SELECT a.sync_rebuild INTO rebuild FROM prefs_account_state AS a WHERE a.account = owner;
    rebuild := coalesce(rebuild, false);
END
$$;

CREATE OR REPLACE FUNCTION prefs_sync_take_number(owner text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    taken bigint;
BEGIN
    SELECT t.number INTO taken FROM prefs_sync_transaction AS t
    WHERE t.xid = pg_current_xact_id() AND t.account = owner;
    IF FOUND THEN
        RETURN taken;
    END IF;
    PERFORM pg_advisory_xact_lock(prefs_sync_lock_key(owner));
    taken := nextval('prefs_sync_sequence');
    IF taken % 32 = 0 THEN
        DELETE FROM prefs_sync_transaction WHERE (xid, account) IN (
            SELECT t.xid, t.account FROM prefs_sync_transaction AS t
            WHERE t.xid < pg_snapshot_xmin(pg_current_snapshot())
            FOR UPDATE SKIP LOCKED);
    END IF;
    INSERT INTO prefs_sync_transaction (xid, account, number)
    VALUES (pg_current_xact_id(), owner, taken);
    RETURN taken;
END
$$;

-- A replacement keeps none of the settings the functions had: the path pinned again.
DO $pinned$
DECLARE
    fn regprocedure;
BEGIN
    FOREACH fn IN ARRAY ARRAY[
        'prefs_sync_begin(text)'::regprocedure,
        'prefs_sync_take_number(text)'::regprocedure]
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
            fn, pg_catalog.current_schema());
    END LOOP;
END
$pinned$;
