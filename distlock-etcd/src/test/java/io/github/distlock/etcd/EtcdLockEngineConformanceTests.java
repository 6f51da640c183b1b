package io.github.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.conformance.AbstractLockEngineConformanceTests;
import io.github.distlock.conformance.HandOverAfterLossConformance;
import io.github.distlock.fixtures.etcd.TestEtcd;

/**
 * The engine conformance suite on a real one-member etcd. Every engine takes a lease of its own, which is what makes
 * it a separate instance to etcd; they share one client, as a client costs threads and connections that hundreds of
 * engines (some tests start one per attempt) would pile up.
 */
class EtcdLockEngineConformanceTests extends AbstractLockEngineConformanceTests
		implements HandOverAfterLossConformance {

	/** Long enough that no lease expires by accident under a busy machine; crashes here revoke it. */
	private static final Duration LEASE_TTL = Duration.ofSeconds(5);

	private static TestEtcd etcd;

	private static Client client;

	@BeforeAll
	static void startEtcd() throws Exception {
		etcd = TestEtcd.single();
		client = etcd.newClient();
	}

	@AfterAll
	static void stopEtcd() {
		if (client != null) {
			client.close();
		}
		if (etcd != null) {
			etcd.close();
		}
	}

	@Override
	protected LockEngine newEngine(LockLostListener listener) {
		return new EtcdLockEngine(client, EtcdLockEngine.DEFAULT_ROOT, LEASE_TTL, listener);
	}

	/**
	 * Closes the engine without releasing: it revokes its lease, as a ZooKeeper client's close ends its session, and
	 * etcd deletes the keys with it at once. A process killed outright says nothing; its locks end with the lease's
	 * time to live, which {@link EtcdLockEngineTests} covers.
	 */
	@Override
	protected void crash(LockEngine engine) {
		((EtcdLockEngine) engine).close();
	}

	@Override
	protected boolean lockExists(String name, String key) {
		return !StoredQueues.queue(etcd, name, key).isEmpty();
	}

	@Override
	protected void deleteLock(String name, String key) {
		StoredQueues.deleteQueue(etcd, name, key);
	}

	/** etcd knows a waiter by its key queued behind the holder's. */
	@Override
	protected void awaitWaiterQueued(String key) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (StoredQueues.queue(etcd, "conformance", key).size() > 1) {
				return;
			}
			Thread.sleep(5);
		}
		throw new AssertionError("No waiter for " + key);
	}

}
