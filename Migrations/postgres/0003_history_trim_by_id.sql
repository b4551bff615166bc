-- Prunes the history by the one id that falls out of the limit, and with an index the
-- planner cannot take for it. Ids are dense per account and each change adds one row, so at
-- most that row is past the limit (`setHistoryLimit` deletes the range itself when the limit
-- goes down). The range delete of 0001 walked every index entry of the account's history on
-- each write (0.4-0.7 ms at 10,000 rows, more than the rest of a set together): the planner,
-- without statistics on a young table, took the by-key index, whose leading account column
-- was all it could use. The by-key index now leads with suite and key, which every query
-- through it names; queries by account and id have only the primary key.
DROP INDEX preference_history_by_key;
CREATE INDEX preference_history_by_key ON preference_history (suite, key, account, id);

CREATE OR REPLACE FUNCTION prefs_record_change() RETURNS trigger
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
    DELETE FROM preference_history WHERE account = owner AND id = next_id - greatest(kept, 1);
    -- One notification per channel and transaction: PostgreSQL folds identical ones.
    PERFORM pg_notify('prefs:' || owner, '');
    RETURN NULL;
END
$$;
