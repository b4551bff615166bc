-- Prefix indexes for the bookmark search: a query such as 'lond*' then reads one list of
-- the index instead of merging the lists of every word that starts with 'lond'.
DROP TABLE bookmark_search;

CREATE VIRTUAL TABLE bookmark_search USING fts5 (
    title, category, tags, note, url,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3 4'
);

INSERT INTO bookmark_search (rowid, title, category, tags, note, url)
SELECT b.id, b.title, b.category,
    coalesce((SELECT group_concat(t.tag, ' ') FROM bookmark_tag t WHERE t.bookmark_id = b.id), ''),
    b.note, b.url
FROM bookmark b;
