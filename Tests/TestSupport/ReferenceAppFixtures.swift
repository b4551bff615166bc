import Foundation

/// The reference app's sample data, copied from the shared fixtures into Tests/Fixtures.
package enum Fixtures {
    package struct Trip: Decodable {
        package let id: Int
        package let destination: String
        package let image: String
    }

    package struct Movie: Decodable {
        package let id: Int
        package let thumbnail: String
        package let title: String
        package let description: String
        package let trailerLink: String
        package let catagory: String
        package let isFeaturedMovie: Bool
    }

    package struct WalkthroughPage: Decodable {
        package let image: String
        package let heading: String
        package let subHeading: String
    }

    package static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name).json")
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    package static var trips: [Trip] { get throws { try load("trips") } }
    package static var movies: [Movie] { get throws { try load("movies") } }
    package static var walkthrough: [WalkthroughPage] { get throws { try load("walkthrough") } }
}
