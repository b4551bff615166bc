-- Selections: the selected index of a pager, carousel or list, kept valid by its policy.
CREATE TABLE selection (
    name TEXT PRIMARY KEY NOT NULL CHECK (name <> ''),
    selected_index INTEGER,
    count INTEGER NOT NULL CHECK (count >= 0),
    policy TEXT NOT NULL CHECK (policy IN ('clamp', 'wrap', 'optional')),
    item_id TEXT,
    updated_at REAL NOT NULL,
    CHECK (selected_index IS NULL OR (selected_index >= 0 AND selected_index < count)),
    CHECK (selected_index IS NOT NULL OR policy = 'optional' OR count = 0)
) STRICT;
