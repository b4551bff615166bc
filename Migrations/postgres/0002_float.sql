-- A float type of its own, so that a Float reads back with its own digits. Values are text
-- already: a float is its shortest digits, and NaN and the infinities of double and float
-- are 'nan', 'inf' and '-inf'. And the version of a stored value's shape, as in SQLite's
-- 0007 (NULL when the writer named none).

ALTER TABLE preference ADD COLUMN value_version integer CHECK (value_version >= 0);

ALTER TABLE preference
    DROP CONSTRAINT preference_type_check,
    ADD CONSTRAINT preference_type_check CHECK (type IN (
        'bool', 'int', 'double', 'float', 'string', 'url', 'date', 'data', 'array',
        'dictionary', 'json'
    ));

ALTER TABLE preference_declaration
    DROP CONSTRAINT preference_declaration_type_check,
    ADD CONSTRAINT preference_declaration_type_check CHECK (type IN (
        'bool', 'int', 'double', 'float', 'string', 'url', 'date', 'data', 'array',
        'dictionary', 'json'
    ));
