-- The bookmarks of one folder, in list order: what the HTML export reads folder by folder.
-- Partial, so that a bookmark in no folder (what the app writes) costs its insert nothing
-- more.
CREATE INDEX bookmark_by_folder ON bookmark (account, folder_id, kind, position)
    WHERE folder_id IS NOT NULL;
