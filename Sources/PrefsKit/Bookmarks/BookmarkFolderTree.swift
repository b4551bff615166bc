/// The folder rows as a tree: paths of folders, the folders under a path, and a walk that
/// visits parents before children. Every walk is iterative, so a tree 10,000 folders deep
/// (a hostile import) cannot exhaust the stack.
package struct BookmarkFolderTree {
    private var byID: [Int64: BookmarkFolder] = [:]
    private var children: [Int64?: [BookmarkFolder]] = [:]

    package init(_ folders: [BookmarkFolder]) {
        for folder in folders {
            byID[folder.id] = folder
        }
        for folder in folders {
            // A parent that is missing (written by another tool) puts the folder on top.
            let parent = folder.parentID.flatMap { byID[$0] == nil ? nil : $0 }
            children[parent, default: []].append(folder)
        }
        for key in children.keys {
            children[key]?.sort { ($0.position, $0.id) < ($1.position, $1.id) }
        }
    }

    /// Whether a folder id is in the tree.
    package func contains(_ id: Int64) -> Bool { byID[id] != nil }

    /// The folders under a parent (nil: the top level), in order.
    package func children(of parent: Int64?) -> [BookmarkFolder] { children[parent] ?? [] }

    /// Every folder, each after its parent, siblings in order (depth first).
    package var ordered: [BookmarkFolder] {
        var result: [BookmarkFolder] = []
        result.reserveCapacity(byID.count)
        var stack = Array(children(of: nil).reversed())
        var seen: Set<Int64> = []
        while let folder = stack.popLast() {
            guard seen.insert(folder.id).inserted else { continue }
            result.append(folder)
            stack += children(of: folder.id).reversed()
        }
        return result
    }

    /// The names from the top down to a folder (empty for an unknown id).
    package func path(of id: Int64) -> [String] {
        var names: [String] = []
        var current: Int64? = id
        var seen: Set<Int64> = []
        while let id = current, let folder = byID[id], seen.insert(id).inserted {
            names.append(folder.name)
            current = folder.parentID
        }
        return names.reversed()
    }

    /// The ids of every folder with this path and of every folder under them.
    package func identifiers(under path: [String]) -> [Int64] {
        var level: [BookmarkFolder] = children(of: nil)
        for (depth, name) in path.enumerated() {
            let matching = level.filter { ExactName.sameBytes($0.name, name) }
            level = depth == path.count - 1 ? matching : matching.flatMap { children(of: $0.id) }
        }
        var result: [Int64] = []
        var stack = level
        var seen: Set<Int64> = []
        while let folder = stack.popLast() {
            guard seen.insert(folder.id).inserted else { continue }
            result.append(folder.id)
            stack += children(of: folder.id)
        }
        return result
    }
}
