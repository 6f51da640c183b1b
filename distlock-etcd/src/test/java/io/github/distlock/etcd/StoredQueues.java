package io.github.distlock.etcd;

import java.util.List;

import io.etcd.jetcd.KeyValue;

import io.github.distlock.fixtures.etcd.TestEtcd;

/** A lock's queue as the engine lays it out under its default root, read or deleted without the engines. */
final class StoredQueues {

	private static final LockKeys KEYS = new LockKeys(EtcdLockEngine.DEFAULT_ROOT);

	private StoredQueues() {
	}

	/** The keys queued for a lock, holder first (by create revision). */
	static List<KeyValue> queue(TestEtcd etcd, String name, String key) {
		return etcd.keysUnder(KEYS.queue(name, key));
	}

	/** Deletes every key of a lock, as an operator would. */
	static void deleteQueue(TestEtcd etcd, String name, String key) {
		etcd.deleteKeysUnder(KEYS.queue(name, key));
	}

}
