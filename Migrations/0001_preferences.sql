-- Preferences: typed values by suite and key, their declarations, and a bounded history.
-- Types and storage (see README "Tables"):
--   bool INTEGER 0/1, int INTEGER, double REAL, string TEXT, url TEXT (absolute string),
--   date REAL (seconds since 2001-01-01 UTC), data BLOB,
--   array and dictionary BLOB (binary property list), json TEXT.

CREATE TABLE setting (
    name TEXT PRIMARY KEY NOT NULL,
    value ANY
) STRICT;

INSERT INTO setting (name, value) VALUES ('history_limit', 10000);

CREATE TABLE preference (
    suite TEXT NOT NULL,
    key TEXT NOT NULL,
    type TEXT NOT NULL,
    value ANY NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (suite, key),
    CHECK (CASE type
        WHEN 'bool' THEN typeof(value) = 'integer' AND value IN (0, 1)
        WHEN 'int' THEN typeof(value) = 'integer'
        WHEN 'double' THEN typeof(value) = 'real'
        WHEN 'string' THEN typeof(value) = 'text'
        WHEN 'url' THEN typeof(value) = 'text'
        WHEN 'date' THEN typeof(value) = 'real'
        WHEN 'data' THEN typeof(value) = 'blob'
        WHEN 'array' THEN typeof(value) = 'blob'
        WHEN 'dictionary' THEN typeof(value) = 'blob'
        WHEN 'json' THEN typeof(value) = 'text'
        ELSE 0
    END)
) STRICT, WITHOUT ROWID;

CREATE TABLE preference_declaration (
    suite TEXT NOT NULL,
    key TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN (
        'bool', 'int', 'double', 'string', 'url', 'date', 'data', 'array', 'dictionary', 'json'
    )),
    default_value ANY,
    description TEXT,
    PRIMARY KEY (suite, key)
) STRICT, WITHOUT ROWID;

-- One row per change; value and type are NULL when the key was removed.
CREATE TABLE preference_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    suite TEXT NOT NULL,
    key TEXT NOT NULL,
    type TEXT,
    value ANY,
    old_type TEXT,
    old_value ANY,
    changed_at REAL NOT NULL
) STRICT;

CREATE INDEX preference_history_by_key ON preference_history (suite, key, id);

CREATE TRIGGER preference_inserted AFTER INSERT ON preference
BEGIN
    INSERT INTO preference_history (suite, key, type, value, old_type, old_value, changed_at)
    VALUES (NEW.suite, NEW.key, NEW.type, NEW.value, NULL, NULL, NEW.updated_at);
END;

CREATE TRIGGER preference_updated AFTER UPDATE ON preference
WHEN OLD.value IS NOT NEW.value OR OLD.type IS NOT NEW.type
BEGIN
    INSERT INTO preference_history (suite, key, type, value, old_type, old_value, changed_at)
    VALUES (NEW.suite, NEW.key, NEW.type, NEW.value, OLD.type, OLD.value, NEW.updated_at);
END;

CREATE TRIGGER preference_deleted AFTER DELETE ON preference
BEGIN
    INSERT INTO preference_history (suite, key, type, value, old_type, old_value, changed_at)
    VALUES (OLD.suite, OLD.key, NULL, NULL, OLD.type, OLD.value,
            (julianday('now') - 2451910.5) * 86400.0);
END;

-- Keeps the newest 'history_limit' rows.
CREATE TRIGGER preference_history_bounded AFTER INSERT ON preference_history
BEGIN
    DELETE FROM preference_history
    WHERE id <= NEW.id - (SELECT value FROM setting WHERE name = 'history_limit');
END;
