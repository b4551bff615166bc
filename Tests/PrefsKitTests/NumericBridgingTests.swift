import Foundation
import Testing

@testable import PrefsKit

/// Numbers stored under one numeric type read through a typed key of another, as
/// @AppStorage reads them through NSNumber on Apple platforms; what cannot be bridged
/// reads as the key's default.
@Suite struct NumericBridgingTests {
    let store: PreferenceStore

    init() throws {
        store = PreferenceStore(database: try .inMemory())
    }

    static let cases:
        [(stored: PreferenceValue, bool: Bool, int: Int, double: Double, float: Float)] = [
            // (default Bool false, Int -7, Double -0.5, Float -0.25 when not bridged)
            (.int(1), true, 1, 1.0, 1.0),
            (.int(0), false, 0, 0.0, 0.0),
            (.int(2), true, 2, 2.0, 2.0),
            (.double(1.0), true, 1, 1.0, 1.0),
            (.double(2.5), true, -7, 2.5, 2.5),
            (.double(0.0), false, 0, 0.0, 0.0),
            (.double(1e300), true, -7, 1e300, -0.25),
            (.bool(true), true, 1, 1.0, 1.0),
            (.bool(false), false, 0, 0.0, 0.0),
            (.string("1"), false, -7, -0.5, -0.25),
            (.string("YES"), false, -7, -0.5, -0.25),
            (.data(Data([1])), false, -7, -0.5, -0.25),
        ]

    @Test(arguments: cases)
    func aNumberReadsThroughEveryNumericKey(
        stored: PreferenceValue, bool: Bool, int: Int, double: Double, float: Float
    ) throws {
        try store.setValue(stored, forKey: "n")
        #expect(store[Prefs.Key("n", default: false)] == bool)
        #expect(store[Prefs.Key("n", default: -7)] == int)
        #expect(store[Prefs.Key("n", default: -0.5)] == double)
        #expect(store[Prefs.Key("n", default: Float(-0.25))] == float)
        // A read never rewrites what is stored.
        #expect(try store.storedValue(forKey: "n") == stored)
    }

    @Test func theIssuesExamplesReadAsOnApplePlatforms() throws {
        store.set(1, forKey: "volume")  // the UserDefaults API, an undeclared key
        #expect(store[Prefs.Key("volume", default: 0.5)] == 1.0)
        try store.setValue(.int(1), forKey: "flag")
        #expect(store[Prefs.Key("flag", default: false)] == true)
        #expect(store[Prefs.Key("maybe", default: 3)] == 3)
    }
}

/// A typed key's default reaches the UserDefaults-style getters once the key was used, as
/// sindresorhus/Defaults registers its keys' defaults.
@Suite struct TypedKeyDefaultTests {
    @Test func untypedGettersAgreeWithATypedKeyOnceItWasRead() throws {
        let store = PreferenceStore(database: try .inMemory())
        let autoplay = Prefs.Key("autoplay", default: true)
        #expect(store.bool(forKey: "autoplay") == false)  // not known yet, as in UserDefaults
        #expect(store[autoplay] == true)
        #expect(store.bool(forKey: "autoplay") == true)
        #expect(try store.value(forKey: "autoplay") == .bool(true))
        try store.set(false, for: autoplay)
        #expect(store.bool(forKey: "autoplay") == false)
        try store.removeValue(for: autoplay)
        #expect(store.bool(forKey: "autoplay") == true)
        #expect(try store.storedValue(forKey: "autoplay") == nil)  // never written
    }

    @Test func declaringAKeyRegistersItsDefaultAndEachKeyKeepsItsOwn() throws {
        let store = PreferenceStore(database: try .inMemory())
        try store.declare(Prefs.Key("speed", default: 1.5))
        #expect(store.double(forKey: "speed") == 1.5)
        // Another key object of the same name but another default reads its own.
        #expect(store[Prefs.Key("speed", default: 2.0)] == 1.5)  // the declared default wins
        #expect(store[Prefs.Key("unused", default: 7)] == 7)
        #expect(store[Prefs.Key("unused", default: 9)] == 9)
        #expect(store.integer(forKey: "unused") == 7)  // the first key read registered
    }
}
