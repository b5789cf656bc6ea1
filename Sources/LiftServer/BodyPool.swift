import Synchronization

/// Bytes of request bodies held at once, across connections, claimed as the bytes arrive (a request
/// starts with a small claim and grows it with its upload), within a total and a share per client
/// address: a request head that announces a large body claims nothing it has not sent, and one
/// address cannot hold every upload's room.
package final class BodyPool: Sendable {
    /// Why a claim was refused.
    package enum Refusal: Error, Equatable {
        /// The bodies held now leave too little of the total.
        case full
        /// This client address holds its share already.
        case clientShare
    }

    /// Bytes held at once, in all and per client address.
    let capacity: Int, perClient: Int
    private let state = Mutex<(total: Int, byClient: [String: Int])>((0, [:]))

    init(capacity: Int, perClient: Int) {
        self.capacity = capacity
        self.perClient = perClient
    }

    /// Bytes held now, in all.
    package var held: Int { state.withLock { $0.total } }

    /// Claims `bytes` more for a body from `client`.
    func claim(_ bytes: Int, for client: String) throws(Refusal) {
        let refusal: Refusal? = state.withLock { state in
            let mine = state.byClient[client, default: 0]
            guard state.total + bytes <= capacity else { return .full }
            guard mine + bytes <= perClient else { return .clientShare }
            state.total += bytes
            state.byClient[client] = mine + bytes
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Returns `bytes` claimed for `client`.
    func release(_ bytes: Int, for client: String) {
        guard bytes > 0 else { return }
        state.withLock { state in
            state.total -= bytes
            let left = state.byClient[client, default: 0] - bytes
            state.byClient[client] = left > 0 ? left : nil
        }
    }
}
