import Dispatch
import Synchronization

/// An answer: a status, its headers and a body (JSON but for a picture); with, for the
/// request log only, the account the token opened and the cause of a failure.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var body: [UInt8]
    /// The body's `Content-Type`.
    package var contentType = "application/json"
    /// Headers beyond Content-Type and Cache-Control.
    package var headers: [(name: String, value: String)] = []
    /// The account the token opened (never the token).
    package var account: String?
    /// Why the request failed, as the log line tells it; never sent.
    package var cause: String?
    /// Set when the answer comes later (a long poll waiting): the status and body above are
    /// then nothing, and the answer is what this is given.
    package var parked: ParkedAnswer?

    package init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// The answer to a request's headers that lets its body be read (``HTTPRequest/isHeadersOnly``):
    /// HTTP's 100 Continue, never logged.
    package static let proceed = HTTPResponse(status: 100, body: [])

    /// An answer that comes later, through `parked`.
    package static func later(_ parked: ParkedAnswer) -> HTTPResponse {
        var response = HTTPResponse(status: 0, body: [])
        response.parked = parked
        return response
    }

    /// This answer changed by `transform`: now, or when a parked answer comes.
    package func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse)
        -> HTTPResponse
    {
        guard let parked else { return transform(self) }
        let next = ParkedAnswer()
        parked.whenAnswered { next.answer(transform($0)) }
        return .later(next)
    }

    /// The answer, waiting for a parked one (the in-process tests' way).
    package func waited() -> HTTPResponse {
        guard let parked else { return self }
        let done = DispatchSemaphore(value: 0)
        let answer = Mutex<HTTPResponse?>(nil)
        parked.whenAnswered { response in
            answer.withLock { $0 = response.waited() }
            done.signal()
        }
        done.wait()
        return answer.withLock { $0 } ?? self
    }

    /// A header's value, by name in any case.
    package func header(_ name: String) -> String? {
        headers.first { HTTPRequest.headerKey($0.name) == HTTPRequest.headerKey(name) }?.value
    }
}

/// An answer given later, once, from any thread: what a parked long poll returns at once,
/// and answers when its account changes or its wait runs out. Whoever waits for it is told
/// once, when both the answer and the waiter are there.
package final class ParkedAnswer: Sendable {
    private struct State {
        var answer: HTTPResponse?
        var waiter: (@Sendable (HTTPResponse) -> Void)?
    }

    private let state = Mutex(State())

    package init() {}

    /// Gives the answer; a second is ignored.
    package func answer(_ response: HTTPResponse) {
        let waiter = state.withLock { state -> (@Sendable (HTTPResponse) -> Void)? in
            guard state.answer == nil else { return nil }
            state.answer = response
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?(response)
    }

    /// Hands the answer to `waiter` when it comes (now, if it came).
    package func whenAnswered(_ waiter: @escaping @Sendable (HTTPResponse) -> Void) {
        let answer = state.withLock { state -> HTTPResponse? in
            if state.answer == nil { state.waiter = waiter }
            return state.answer
        }
        if let answer { waiter(answer) }
    }
}
