-- A float type of its own, so that a Float reads back with its own digits ("12.34", not
-- those of its widening to a double), and NaN for double and float. SQLite turns a NaN into
-- NULL, so a NaN is kept as the text 'NaN'; the infinities are REAL values as they are.
-- And the version of a stored value's shape (value_version, NULL when the writer named
-- none): a typed key of a Codable type that evolved upgrades older shapes through its
-- migration, once, and never touches a shape newer than it knows.
-- SQLite cannot change a CHECK constraint: the two tables that name the types are rebuilt,
-- the preference table with its history triggers.

CREATE TABLE preference_rebuilt (
    suite TEXT NOT NULL,
    key TEXT NOT NULL,
    type TEXT NOT NULL,
    value ANY NOT NULL,
    updated_at REAL NOT NULL,
    value_version INTEGER CHECK (value_version >= 0),
    PRIMARY KEY (suite, key),
    CHECK (CASE type
        WHEN 'bool' THEN typeof(value) = 'integer' AND value IN (0, 1)
        WHEN 'int' THEN typeof(value) = 'integer'
        WHEN 'double' THEN typeof(value) = 'real' OR (typeof(value) = 'text' AND value = 'NaN')
        WHEN 'float' THEN typeof(value) = 'real' OR (typeof(value) = 'text' AND value = 'NaN')
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

INSERT INTO preference_rebuilt (suite, key, type, value, updated_at)
SELECT suite, key, type, value, updated_at FROM preference;

DROP TABLE preference;
ALTER TABLE preference_rebuilt RENAME TO preference;

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

CREATE TABLE preference_declaration_rebuilt (
    suite TEXT NOT NULL,
    key TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN (
        'bool', 'int', 'double', 'float', 'string', 'url', 'date', 'data', 'array',
        'dictionary', 'json'
    )),
    default_value ANY,
    description TEXT,
    PRIMARY KEY (suite, key)
) STRICT, WITHOUT ROWID;

INSERT INTO preference_declaration_rebuilt (suite, key, type, default_value, description)
SELECT suite, key, type, default_value, description FROM preference_declaration;

DROP TABLE preference_declaration;
ALTER TABLE preference_declaration_rebuilt RENAME TO preference_declaration;
