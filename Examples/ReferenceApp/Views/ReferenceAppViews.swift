// The reference app's four screens in SwiftUI, over the model layer in
// Examples/ReferenceApp/Model. Built where SwiftUI exists; an app target's whole code is
//
//     @main struct TripsApp: App {
//         var body: some Scene { ReferenceAppScene() }
//     }
//
// Each view reads its model's wrapped properties; PrefsKit registers those reads with Swift's
// Observation, so a view refreshes when the state changes here or in another process (a
// widget, an extension, the prefs command).
#if canImport(SwiftUI)
    import PrefsKit
    import ReferenceAppModel
    import SwiftUI

    /// The app's one window, over the default prefs file (`$PREFS_DB`, else Application
    /// Support in the app's container). A file that cannot be opened is said on screen.
    public struct ReferenceAppScene: Scene {
        private let stores: Result<AppStores, any Error>

        public init(path: String = DatabaseLocation.defaultPath()) {
            stores = Result { try AppStores(path: path) }
        }

        public var body: some Scene {
            WindowGroup {
                switch stores {
                case .success(let stores):
                    ReferenceAppRoot(stores: stores)
                case .failure(let error):
                    Text("The app's settings could not be opened: \(String(describing: error))")
                }
            }
        }
    }

    /// The app's root: three tabs, and the walkthrough over them until it is done.
    public struct ReferenceAppRoot: View {
        @State private var walkthrough: WalkthroughScreen
        @State private var trips: TripsScreen
        @State private var featured: FeaturedScreen
        @State private var articles: ArticlesScreen

        public init(stores: AppStores) {
            _walkthrough = State(initialValue: WalkthroughScreen(stores: stores))
            _trips = State(initialValue: TripsScreen(stores: stores))
            _featured = State(initialValue: FeaturedScreen(stores: stores))
            _articles = State(initialValue: ArticlesScreen(stores: stores))
        }

        public var body: some View {
            @Bindable var walkthrough = walkthrough
            TabView {
                TripsView(model: trips)
                    .tabItem { Label("Trips", systemImage: "airplane") }
                FeaturedView(model: featured)
                    .tabItem { Label("Featured", systemImage: "star") }
                ArticlesView(model: articles)
                    .tabItem { Label("Articles", systemImage: "doc.text") }
            }
            .sheet(isPresented: $walkthrough.isPresented) {
                WalkthroughView(model: walkthrough)
            }
        }
    }

    /// Screen 1: three pages, Next (Get Started on the last) and Skip.
    struct WalkthroughView: View {
        let model: WalkthroughScreen
        private let pages = [
            "Plan trips and keep the ones you like.",
            "Swipe through featured picks.",
            "Bookmark anything to find it again.",
        ]

        var body: some View {
            VStack(spacing: 24) {
                Text(pages[min(model.page ?? 0, pages.count - 1)])
                    .font(.title2)
                    .multilineTextAlignment(.center)
                HStack {
                    if !model.isOnLastPage {
                        Button("Skip") { model.skip() }
                    }
                    Spacer()
                    Button(model.primaryButtonTitle) { model.primaryButtonTapped() }
                }
            }
            .padding()
        }
    }

    /// Screen 2: a carousel of trips with a bookmark button for the one in front.
    struct TripsView: View {
        let model: TripsScreen

        var body: some View {
            VStack(spacing: 16) {
                Text(model.currentTrip.name)
                    .font(.largeTitle)
                    .frame(maxWidth: .infinity, maxHeight: .infinity)
                    #if !os(tvOS)
                        .contentShape(Rectangle())
                        .gesture(
                            DragGesture().onEnded { value in
                                model.swipeEnded(
                                    translation: Double(value.translation.width), pageWidth: 300)
                            })
                    #endif
                HStack {
                    Button("Previous") { model.$currentTripIndex.previous() }
                    Spacer()
                    Button {
                        model.toggleBookmark()
                    } label: {
                        Image(
                            systemName: model.isCurrentTripBookmarked ? "bookmark.fill" : "bookmark"
                        )
                    }
                    Spacer()
                    Button("Next") { model.$currentTripIndex.next() }
                }
                Text("\(model.savedTrips.count) saved")
                    .font(.footnote)
            }
            .padding()
        }
    }

    /// Screen 3: the featured pager; it wraps from the last page to the first.
    struct FeaturedView: View {
        @Bindable var model: FeaturedScreen

        var body: some View {
            #if os(macOS)
                VStack(spacing: 16) {
                    Text(model.currentItem.title).font(.title)
                    HStack {
                        Button("Previous") { model.previous() }
                        Button("Next") { model.next() }
                    }
                }
                .padding()
            #else
                TabView(selection: $model.page) {
                    ForEach(Array(model.items.enumerated()), id: \.offset) { index, item in
                        Text(item.title).font(.title).tag(index)
                    }
                }
                .tabViewStyle(.page)
            #endif
        }
    }

    /// Screen 4: the articles list; the open article is a sheet, closed when none is open.
    struct ArticlesView: View {
        @Bindable var model: ArticlesScreen

        var body: some View {
            NavigationStack {
                List(model.articles) { article in
                    Button(article.title) { model.open(article) }
                }
                .navigationTitle("Articles")
                .sheet(item: $model.selectedArticle) { article in
                    VStack(spacing: 16) {
                        Text(article.title).font(.title)
                        Button("Close") { model.close() }
                    }
                    .padding()
                }
            }
        }
    }
#endif
