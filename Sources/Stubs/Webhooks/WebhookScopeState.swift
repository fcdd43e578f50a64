import MockCore

/// The dispatch's part of a scope: nothing but the hook by which the scope's reset (`POST
/// /__admin/reset`) or end (deleted, expired, evicted) cancels the webhooks its requests fired.
final class WebhookScopeState: ScopeState {
    private let cancel: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) {
        self.cancel = cancel
    }

    func reset() { cancel() }

    func discard() { cancel() }
}
