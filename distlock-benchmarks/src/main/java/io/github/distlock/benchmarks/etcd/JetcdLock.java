package io.github.distlock.benchmarks.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseRevokeResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.github.distlock.benchmarks.lockserver.SystemLock;
import io.github.distlock.etcd.EtcdLockEngine;
import io.grpc.stub.StreamObserver;

/**
 * etcd's own lock service (the server-side {@code concurrency} mutex of its v3 API), called through jetcd's lock
 * client: {@code lock(name, lease)} returns once the caller holds the lock, with the key that holds it, and
 * {@code unlock(key)} deletes that key. The baseline every etcd user of jetcd has.
 * <p>
 * The lock is the lease's: etcd names the holder's key after the lease, and a second {@code lock} with the same
 * lease counts as the same holder and returns at once. So each caller locks with a lease no other caller is using at
 * that moment: a lease is taken from the instance's idle ones (granted when there is none, with the time to live of
 * distlock's instance lease, and kept alive by jetcd), and given back after the unlock. An instance with four threads
 * thus ends up with four leases, granted in the warm-up. A keep-alive that fails or ends is counted as a lost lock,
 * as a suspended session is on ZooKeeper: a lock held with that lease may be gone.
 */
final class JetcdLock implements SystemLock {

	private static final String ROOT = "/jetcd-locks/";

	private static final long LEASE_TTL_SECONDS = EtcdLockEngine.DEFAULT_LEASE_TTL.toSeconds();

	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

	private final Lock locks;

	private final Lease leases;

	private final Queue<KeptLease> idle = new ConcurrentLinkedQueue<>();

	private final Set<KeptLease> granted = ConcurrentHashMap.newKeySet();

	private final LongAdder lost = new LongAdder();

	private volatile boolean closed;

	JetcdLock(Client client) {
		this.locks = client.getLockClient();
		this.leases = client.getLeaseClient();
	}

	@Override
	public Held lock(String key, Duration wait) throws Exception {
		KeptLease lease = this.idle.poll();
		if (lease == null) {
			lease = grant();
		}
		CompletableFuture<LockResponse> locking = this.locks.lock(ByteSequence.from(ROOT + key,
				StandardCharsets.UTF_8), lease.id());
		LockResponse response;
		try {
			response = locking.get(wait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// The server may still grant it to this lease later: the lease goes, and the lock with it.
			locking.cancel(true);
			discard(lease);
			return null;
		}
		catch (InterruptedException | ExecutionException ex) {
			discard(lease);
			throw ex;
		}
		ByteSequence holder = response.getKey();
		KeptLease held = lease;
		return () -> {
			this.locks.unlock(holder).get(CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
			this.idle.offer(held);
		};
	}

	private KeptLease grant() throws Exception {
		long id = this.leases.grant(LEASE_TTL_SECONDS).get(CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS).getID();
		KeptLease lease = new KeptLease(id, this.leases.keepAlive(id, new StreamObserver<>() {

			@Override
			public void onNext(LeaseKeepAliveResponse response) {
			}

			@Override
			public void onError(Throwable failure) {
				// etcd no longer knows the lease, or the keep-alive stream broke: a lock held with it may be gone.
				leaseInDoubt();
			}

			@Override
			public void onCompleted() {
				// No keep-alive answered within the lease's time to live: jetcd gave the lease up.
				leaseInDoubt();
			}

		}));
		this.granted.add(lease);
		return lease;
	}

	private void leaseInDoubt() {
		if (!this.closed) {
			this.lost.increment();
		}
	}

	/** Stops keeping the lease alive and revokes it, which deletes any key held or queued with it. */
	private void discard(KeptLease lease) {
		this.granted.remove(lease);
		lease.keepAlive().close();
		this.leases.revoke(lease.id());
	}

	@Override
	public long lostLocks() {
		return this.lost.sum();
	}

	/** Revokes every lease, waiting up to a call's timeout for etcd; the instance closes the client after. */
	@Override
	public void close() {
		this.closed = true;
		List<CompletableFuture<LeaseRevokeResponse>> revocations = new ArrayList<>();
		for (KeptLease lease : this.granted) {
			lease.keepAlive().close();
			revocations.add(this.leases.revoke(lease.id()));
		}
		try {
			CompletableFuture.allOf(revocations.toArray(CompletableFuture[]::new))
				.get(CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// The leases end with their time to live; the next instance uses leases of its own.
		}
	}

	/** A granted lease and jetcd's keep-alive of it. */
	private record KeptLease(long id, CloseableClient keepAlive) {
	}

}
