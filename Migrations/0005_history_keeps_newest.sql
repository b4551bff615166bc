-- The newest history row is how other connections learn that a preference changed (they
-- read the rows after the last one they saw, and a gap in ids tells them to reload): a
-- history_limit below 1, however it got into the setting table, must still keep it.
DROP TRIGGER preference_history_bounded;

CREATE TRIGGER preference_history_bounded AFTER INSERT ON preference_history
BEGIN
    DELETE FROM preference_history
    WHERE id <= NEW.id - max(1, coalesce((SELECT value FROM setting WHERE name = 'history_limit'), 10000));
END;
