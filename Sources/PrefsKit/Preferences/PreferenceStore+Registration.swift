import Synchronization

extension PreferenceStore {
    /// The registration domain every store of the process shares
    /// (``register(defaults:scope:)`` with ``RegistrationScope/process``).
    static let processRegistration = Mutex<[ExactName: PreferenceValue]>([:])
}
