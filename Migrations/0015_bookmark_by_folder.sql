-- The bookmarks of one folder, in list order: what the HTML export reads folder by folder,
-- so that a file of any size is written without holding every bookmark. Partial, so that
-- a bookmark in no folder (what the app writes) costs its insert nothing more; a bookmark
-- in a folder (an import) pays one index entry.
CREATE INDEX bookmark_by_folder ON bookmark (folder_id, kind, position)
    WHERE folder_id IS NOT NULL;
