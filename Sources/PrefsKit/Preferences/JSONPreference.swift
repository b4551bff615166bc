#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A `Codable` type stored as JSON text.
///
/// ```swift
/// struct WindowLayout: Codable, JSONPreference { var width: Int; var height: Int }
/// ```
public protocol JSONPreference: Codable, PreferenceStorable {}
