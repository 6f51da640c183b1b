package io.github.distlock.benchmarks.systems;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One lock implementation under comparison. Clients are created on first use: most scenarios need one, the hot-key
 * scenario needs four independent ones.
 */
public abstract class LockSystem implements AutoCloseable {

	private final String name;

	private final Map<Integer, LockClient> clients = new ConcurrentHashMap<>();

	protected LockSystem(String name) {
		this.name = name;
	}

	public final String name() {
		return this.name;
	}

	/** Whether this is distlock's own system, judged on every run, rather than a peer library it is compared with. */
	public boolean isDistlock() {
		return false;
	}

	/** Client number {@code index}; clients with different numbers share nothing but the Redis server. */
	public final LockClient client(int index) {
		return this.clients.computeIfAbsent(index, this::newClient);
	}

	/**
	 * The client that holds locks for longer than a lease while others are measured: the held key of the try-lock
	 * scenarios, the many locks of the renewal scenario. Never the client being measured.
	 */
	public final LockClient holdingClient() {
		return client(holdingIndex());
	}

	/** Shuts the holding client down, stopping whatever it still renews; the next use creates a new one. */
	public final void closeHoldingClient() {
		LockClient holder = this.clients.remove(holdingIndex());
		if (holder != null) {
			holder.close();
		}
	}

	/** Client 1 by default; a system whose renewal is an opt-in setting uses a client with it switched on. */
	protected int holdingIndex() {
		return 1;
	}

	protected abstract LockClient newClient(int index);

	/** A SCAN pattern matching every Redis key this system creates, lock keys and any helper keys. */
	public abstract String keyPattern();

	@Override
	public void close() {
		this.clients.values().forEach(LockClient::close);
		this.clients.clear();
	}

	@Override
	public String toString() {
		return this.name;
	}

}
