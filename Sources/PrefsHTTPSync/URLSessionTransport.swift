import Dispatch
import Foundation
import PrefsKit
import PrefsSync
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The sync protocol's requests sent with URLSession: Foundation's on Apple platforms,
/// FoundationNetworking's (libcurl) on Linux. TLS is verified as the system verifies it; on
/// Apple platforms a private CA may be named (``SyncServerOptions/certificateAuthority``).
final class URLSessionTransport: NSObject, SyncHTTPTransport, @unchecked Sendable {
    let server: String
    private let base: URL
    private var session: URLSession!
    private let anchors: [Data]

    init(base: URL, anchors: [Data]) {
        var shown = base.absoluteString
        while shown.hasSuffix("/") { shown.removeLast() }
        server = shown
        self.base = base
        self.anchors = anchors
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    deinit { session?.invalidateAndCancel() }

    func send(_ request: SyncHTTPRequest) throws -> SyncHTTPResponse {
        guard let url = URL(string: server + request.path) else {
            throw SyncTransportError(
                detail: "the path \(request.path) makes no URL", isRetryable: false)
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = Double(request.timeout.components.seconds)
        for header in request.headers {
            urlRequest.setValue(header.value, forHTTPHeaderField: header.name)
        }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<SyncHTTPResponse, SyncTransportError>?>(nil)
        let task = session.dataTask(with: urlRequest) { data, response, error in
            let outcome: Result<SyncHTTPResponse, SyncTransportError>
            if let response = response as? HTTPURLResponse {
                outcome = .success(
                    SyncHTTPResponse(status: response.statusCode, body: Array(data ?? Data())))
            } else {
                let failure = error.map { String(describing: $0.localizedDescription) }
                outcome = .failure(
                    SyncTransportError(
                        detail: failure ?? "no answer", isRetryable: Self.isRetryable(error),
                        isUntrusted: Self.isUntrusted(error)))
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        task.resume()
        done.wait()
        guard let outcome = result.withLock({ $0 }) else {
            throw SyncTransportError(detail: "no answer", isRetryable: true)
        }
        return try outcome.get()
    }

    /// A certificate this device does not trust.
    private static func isUntrusted(_ error: (any Error)?) -> Bool {
        guard let error = error as? URLError else { return false }
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return true
        default:
            return false
        }
    }

    /// A broken connection or a timeout may go better the next time; a name that does not
    /// resolve, a certificate that does not verify, may not.
    private static func isRetryable(_ error: (any Error)?) -> Bool {
        guard let error = error as? URLError else { return true }
        switch error.code {
        case .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
            .badServerResponse:
            return true
        default:
            return false
        }
    }
}

extension URLSessionTransport: URLSessionTaskDelegate {
    /// No redirect is followed: the request carries the device's token, which goes only to
    /// the server the device was pointed at. The redirect itself is the answer, and the
    /// round fails with its status.
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

extension URLSessionTransport: URLSessionDelegate {
    #if canImport(Security)
        /// A private CA: the server's chain is evaluated against its certificates only.
        func urlSession(
            _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
            completionHandler:
                @escaping (URLSession.AuthChallengeDisposition, URLCredential?)
                -> Void
        ) {
            guard !anchors.isEmpty,
                challenge.protectionSpace.authenticationMethod
                    == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else {
                completionHandler(.performDefaultHandling, nil)
                return
            }
            let certificates = anchors.compactMap {
                SecCertificateCreateWithData(nil, $0 as CFData)
            }
            SecTrustSetAnchorCertificates(trust, certificates as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, true)
            var failure: CFError?
            if SecTrustEvaluateWithError(trust, &failure) {
                completionHandler(.useCredential, URLCredential(trust: trust))
            } else {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        }
    #endif
}
