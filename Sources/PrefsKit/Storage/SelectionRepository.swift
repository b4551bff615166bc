/// Storage of selections. Calls are made with the database lock held, writes inside a
/// transaction (``SelectionStore`` does both).
package protocol SelectionRepository: AnyObject {
    /// The selection with a name, nil when there is none.
    func selection(named name: String) throws -> Selection?
    /// Inserts or replaces a selection.
    func save(_ selection: Selection) throws
    /// Deletes a selection; returns whether it existed.
    @discardableResult
    func delete(named name: String) throws -> Bool
    /// Every selection, by name.
    func all() throws -> [Selection]
}
