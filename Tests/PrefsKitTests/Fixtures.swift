import Foundation

/// The reference app's sample data, copied from the shared fixtures into Tests/Fixtures.
enum Fixtures {
    struct Trip: Decodable {
        let id: Int
        let destination: String
        let image: String
    }

    struct Movie: Decodable {
        let id: Int
        let thumbnail: String
        let title: String
        let description: String
        let trailerLink: String
        let catagory: String
        let isFeaturedMovie: Bool
    }

    struct WalkthroughPage: Decodable {
        let image: String
        let heading: String
        let subHeading: String
    }

    static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name).json")
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    static var trips: [Trip] { get throws { try load("trips") } }
    static var movies: [Movie] { get throws { try load("movies") } }
    static var walkthrough: [WalkthroughPage] { get throws { try load("walkthrough") } }
}
