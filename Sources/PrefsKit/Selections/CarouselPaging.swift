/// The drag arithmetic of the trip carousel.
public enum CarouselPaging {
    /// The fraction of a page width a drag must pass to move one page.
    public static let threshold = 0.65

    /// The page a drag ends on: the current page moved by
    /// `Int(-translation / (pageWidth * 0.65))` pages, clamped to `0...count-1`.
    ///
    /// A drag to the left (negative translation) moves forward. Non-finite input or a
    /// non-positive page width leave the page where it is.
    /// - Parameters:
    ///   - currentPage: The page before the drag.
    ///   - translation: The horizontal drag distance in points.
    ///   - pageWidth: The width of one page in points.
    ///   - count: The number of pages.
    public static func targetPage(
        currentPage: Int, translation: Double, pageWidth: Double, count: Int
    ) -> Int {
        guard count > 0 else { return 0 }
        let current = min(max(currentPage, 0), count - 1)
        guard translation.isFinite, pageWidth.isFinite, pageWidth > 0 else { return current }
        let pages = -translation / (pageWidth * threshold)
        // Bound before converting: Int(_:) traps outside Int's range.
        let bounded = min(max(pages, -Double(count)), Double(count))
        return min(max(current + Int(bounded), 0), count - 1)
    }
}
