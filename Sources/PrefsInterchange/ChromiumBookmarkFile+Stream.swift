import PrefsKit

extension ChromiumBookmarkFile {
    /// Reads a Chromium `Bookmarks` file handed over in pieces into a staging file: the
    /// outcome of ``document(reading:)`` on the whole file, in memory that does not grow
    /// with its links. Chromium writes a node's members in the order of their names, so a
    /// folder's `children` come before its `name` and `type`: the file is read twice, first
    /// for the folders' own members, then for the links, each staged as it comes with the
    /// folders before it known. Nil when the file must be read whole (it is not a Chromium
    /// file, or not valid JSON; the whole reading names the problem).
    ///
    /// - Parameter pieces: Makes a reader of the file's pieces from its start, nil at its
    ///   end; called twice.
    /// - Throws: ``BookmarkError/malformedImport(_:)`` when the file changed between the
    ///   two readings; the pieces' errors; ``DatabaseError`` when the staging file fails.
    package static func stage(reading pieces: () throws -> () throws -> [UInt8]?) throws
        -> BookmarkImportStaging?
    {
        var outline = TreeWalk(folders: nil)
        var first = JSONEventStream(next: try pieces())
        guard try outline.walk(&first) else { return nil }
        let staging = try BookmarkImportStaging(format: .chromium)
        var tree = TreeWalk(folders: outline.folders)
        tree.staging = staging
        var second = JSONEventStream(next: try pieces())
        guard try tree.walk(&second), !tree.changed, tree.nodes == outline.nodes else {
            throw BookmarkError.malformedImport("the file changed while it was read")
        }
        staging.finish(tree.document)
        return staging
    }

    /// One reading of the tree. The first (`known` nil) keeps the members of each folder
    /// that has children, by the node's number in file order; the second reads the tree as
    /// ``document(reading:)`` does, taking each such folder's members from the first when
    /// its children begin.
    private struct TreeWalk {
        /// The first reading's folders with children, by node number.
        private(set) var folders: [Int: NodeFields] = [:]
        private let known: [Int: NodeFields]?
        var staging: BookmarkImportStaging?
        private(set) var document = BookmarkImportDocument(format: .chromium)
        private var depths: [Int] = []
        /// Nodes met so far: objects among `roots` (but `other`) and in `children` arrays.
        private(set) var nodes = 0
        /// Whether the second reading found the file other than the first did.
        private(set) var changed = false

        init(folders known: [Int: NodeFields]?) {
            self.known = known
        }

        private struct Frame {
            enum Kind { case document, roots, other, node, children }
            var kind: Kind
            var place = ""
            /// The folder a node, or the nodes of a `children` array, go in.
            var folder: Int?
            /// Whether the nodes here are read (not under a node that is not a folder).
            var isIgnored = false
            var number = 0
            var fields = NodeFields()
            /// The document's `roots`, or a node's first `children`, was met.
            var sawChildren = false
            /// The node was read when its children began.
            var wasRead = false
            /// Elements of a `children` array so far.
            var count = 0
        }

        /// Walks the file; false when it is not what the whole reading takes as a Chromium
        /// file.
        mutating func walk(_ stream: inout JSONEventStream) throws -> Bool {
            guard try stream.nextEvent() == .objectStart else { return false }
            var frames = [Frame(kind: .document)]
            while var frame = frames.popLast() {
                guard let event = try stream.nextEvent() else { return false }
                switch (frame.kind, event) {
                case (.document, .key(let key)):
                    guard let start = try stream.nextEvent() else { return false }
                    if ExactName.sameBytes(key, "roots") && !frame.sawChildren {
                        // The whole reading refuses roots that are not an object.
                        guard start == .objectStart else { return false }
                        frame.sawChildren = true
                        frames += [frame, Frame(kind: .roots)]
                        continue
                    }
                    guard try stream.skip(startingWith: start) else { return false }
                case (.document, .objectEnd):
                    guard frame.sawChildren else { return false }
                    return try stream.nextEvent() == nil && stream.isComplete
                case (.roots, .key(let name)):
                    guard let start = try stream.nextEvent() else { return false }
                    guard start == .objectStart else {
                        guard try stream.skip(startingWith: start) else { return false }
                        break
                    }
                    frames.append(frame)
                    if name == "other" {
                        frames.append(Frame(kind: .other, place: "roots.other"))
                    } else {
                        frames.append(node(place: "roots.\(name)", in: nil, isIgnored: false))
                    }
                    continue
                case (.other, .key(let key)), (.node, .key(let key)):
                    guard let start = try stream.nextEvent() else { return false }
                    if ExactName.sameBytes(key, "children") && !frame.sawChildren {
                        frame.sawChildren = true
                        if start == .arrayStart {
                            let children = try beginChildren(of: &frame)
                            frames += [frame, children]
                            continue
                        }
                    } else if frame.kind == .node && frame.fields.wants(key) {
                        guard let value = try stream.value(startingWith: start) else {
                            return false
                        }
                        frame.fields.take(key, value)
                        break
                    }
                    guard try stream.skip(startingWith: start) else { return false }
                case (.other, .objectEnd), (.roots, .objectEnd):
                    continue
                case (.node, .objectEnd):
                    try end(frame)
                    continue
                case (.children, .objectStart):
                    frames.append(frame)
                    // The first reading needs no places.
                    let place = known == nil ? "" : "\(frame.place).children[\(frame.count)]"
                    frames.append(node(place: place, in: frame.folder, isIgnored: frame.isIgnored))
                    frames[frames.count - 2].count += 1
                    continue
                case (.children, .arrayEnd):
                    continue
                case (.children, _):
                    if known != nil && !frame.isIgnored {
                        document.skipped.append(
                            .init(
                                place: .path("\(frame.place).children[\(frame.count)]"),
                                message: "an entry that is not an object"))
                    }
                    frame.count += 1
                    guard try stream.skip(startingWith: event) else { return false }
                default:
                    return false
                }
                frames.append(frame)
            }
            return false
        }

        private mutating func node(place: String, in folder: Int?, isIgnored: Bool) -> Frame {
            defer { nodes += 1 }
            return Frame(
                kind: .node, place: place, folder: folder, isIgnored: isIgnored, number: nodes)
        }

        /// The frame of the `children` array that begins in this node (or `other`).
        private mutating func beginChildren(of frame: inout Frame) throws -> Frame {
            var children = Frame(
                kind: .children, place: frame.place, folder: frame.folder,
                isIgnored: frame.isIgnored)
            guard frame.kind == .node else { return children }
            guard let known else {
                // The first reading: what the node holds is known at its end.
                return children
            }
            guard !frame.isIgnored, let fields = known[frame.number] else {
                children.isIgnored = true
                return children
            }
            frame.wasRead = true
            let outcome = try read(fields, place: frame.place, in: frame.folder)
            if case .read(let index) = outcome {
                children.folder = index
            } else {
                children.isIgnored = true
            }
            return children
        }

        /// A node ends: the first reading keeps a folder with children; the second reads a
        /// node that was not read when its children began, and checks one that was.
        private mutating func end(_ frame: Frame) throws {
            guard let known else {
                if frame.sawChildren && frame.fields.isFolder {
                    folders[frame.number] = frame.fields
                }
                return
            }
            if frame.wasRead {
                if known[frame.number] != frame.fields { changed = true }
                return
            }
            if frame.sawChildren && frame.fields.isFolder && known[frame.number] == nil
                && !frame.isIgnored
            {
                changed = true
            }
            guard !frame.isIgnored else { return }
            _ = try read(frame.fields, place: frame.place, in: frame.folder)
        }

        private mutating func read(_ fields: NodeFields, place: String, in folder: Int?) throws
            -> Children
        {
            let staging = staging
            return try ChromiumBookmarkFile.read(
                fields, place: place, in: folder, into: &document, depths: &depths,
                adding: { link, folders in try staging?.add(link, folders: folders) })
        }
    }
}
