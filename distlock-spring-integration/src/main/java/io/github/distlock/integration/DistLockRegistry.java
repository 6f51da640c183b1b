package io.github.distlock.integration;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngine;

/**
 * Spring Integration's lock registry on a distlock {@link LockEngine}: what {@code RedisLockRegistry} and
 * {@code JdbcLockRegistry} are to their stores, for any engine (Redis, Redis Cluster, RedLock, a database, ZooKeeper,
 * etcd), with the engine's watchdog, loss detection and fencing tokens. Aggregators, {@code LockRegistryLeaderInitiator}
 * and every other user of a {@code LockRegistry} switch to it by changing one bean.
 * <p>
 * The lock of key {@code k} is the distlock lock of this registry's name and key {@code k}. Each lock is reentrant for
 * the thread that holds it, as a {@code java.util.concurrent.locks.ReentrantLock} is, and held in the store once, by
 * the first hold:
 * <ul>
 * <li>{@code lock()} waits as long as it takes, keeping an interrupt for later; {@code lockInterruptibly()} waits until
 * interrupted; {@code tryLock()} tries once; {@code tryLock(time, unit)} waits up to that long in all. Only a lock held
 * elsewhere makes {@code tryLock} answer {@code false}: a store that cannot be reached ends the wait with distlock's
 * {@code LockAcquisitionException} (a store that refuses, with {@code LockStoreException}).</li>
 * <li>A time to live ({@code lock(Duration)}, {@code tryLock(Duration, Duration)}) is that hold's lease; the other
 * methods use the registry's. A nested hold keeps the first hold's.</li>
 * <li>{@code unlock()} by a thread that does not hold the lock throws {@link IllegalStateException}; conditions are
 * not supported.</li>
 * </ul>
 * <p>
 * A held lock's lease is renewed by the engine's watchdog while it is held, so work that outlasts the lease keeps the
 * lock; if the process dies or stops renewing, the lock expires with the lease. A lock lost while held (renewals
 * failed past the lease by the holder's clock, the key removed from outside) is reported to the engine's
 * {@code LockLostListener} and meters at once, and to the holding thread by an {@link IllegalStateException} from
 * its next acquisition or its {@code unlock()}, as Spring Integration's registries do for a lock that expired.
 */
public final class DistLockRegistry implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

	/** The lock name the registry's locks have unless it is given another. */
	public static final String DEFAULT_NAME = "lock-registry";

	/** The lease of a lock taken without a time to live of its own, unless the registry is given another. */
	public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

	private final LockEngine engine;

	private final String name;

	private final Duration lease;

	private final ConcurrentMap<String, RegistryLock> locks = new ConcurrentHashMap<>();

	/** A registry of locks named {@value #DEFAULT_NAME}, leased for 30 s at a time. */
	public DistLockRegistry(LockEngine engine) {
		this(engine, DEFAULT_NAME, DEFAULT_LEASE);
	}

	/**
	 * @param engine where the locks live
	 * @param name the distlock lock name of every lock of this registry: registries that share a store and must not
	 * share their locks use different names
	 * @param lease the lease of a lock taken without a time to live of its own, renewed while it is held
	 */
	public DistLockRegistry(LockEngine engine, String name, Duration lease) {
		this.engine = Objects.requireNonNull(engine, "engine");
		this.name = Objects.requireNonNull(name, "name");
		this.lease = Leases.requireLease(lease, "lease");
	}

	/**
	 * The lock of this key, the same object for the same key until it is evicted, unused, by
	 * {@link #expireUnusedOlderThan}.
	 * @param lockKey a {@code String}, as for Spring Integration's Redis and JDBC registries
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		if (!(lockKey instanceof String key)) {
			throw new IllegalArgumentException("A DistLockRegistry lock key must be a String, got "
					+ ((lockKey != null) ? lockKey.getClass().getName() + " '" + lockKey + "'" : "null"));
		}
		return this.locks.computeIfAbsent(key, (any) -> new RegistryLock(this.engine, this.name, key, this.lease));
	}

	/**
	 * Forgets the lock objects that no thread holds and that nobody locked or tried to lock for longer than
	 * {@code age} milliseconds; a later {@link #obtain} of their keys makes new ones. The locks in the store are not
	 * touched: an unheld lock has nothing there.
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.nanoTime();
		long ageNanos = Duration.ofMillis(age).toNanos();
		this.locks.values().removeIf((lock) -> lock.unusedFor(now) > ageNanos);
	}

	/**
	 * Gives the lock held by the calling thread its lease again from now, in the store.
	 * @throws IllegalStateException if the calling thread does not hold the lock, or the store no longer holds it for
	 * this thread
	 */
	@Override
	public void renewLock(Object lockKey) {
		heldLock(lockKey).renew(null);
	}

	/**
	 * Gives the lock held by the calling thread at least {@code ttl} more in the store, checking that it is still
	 * this thread's; a renewal never shortens a lease. It lasts until the watchdog's next renewal, a third of the
	 * lock's lease later, which gives the lock its own lease again: a longer lease is asked for with
	 * {@code lock(Duration)}. Renewing by hand is seldom needed: the engine's watchdog renews every held lock.
	 * @throws IllegalStateException if the calling thread does not hold the lock, or the store no longer holds it for
	 * this thread
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		heldLock(lockKey).renew(Leases.requireLease(ttl, "ttl"));
	}

	/**
	 * The fencing token of the calling thread's hold of this lock: larger than the token of every earlier hold of the
	 * same lock, so a store that keeps the largest token it has seen can refuse the writes of a holder that lost the
	 * lock meanwhile. A leader elected by {@code LockRegistryLeaderInitiator} reads its epoch here, in
	 * {@code onGranted}, which runs on the thread that holds the lock.
	 * @throws IllegalStateException if the calling thread does not hold the lock
	 */
	public long fencingToken(Object lockKey) {
		return heldLock(lockKey).token();
	}

	private RegistryLock heldLock(Object lockKey) {
		RegistryLock lock = (lockKey instanceof String key) ? this.locks.get(key) : null;
		if (lock == null || !lock.isHeldByCurrentThread()) {
			throw new IllegalStateException("The lock '" + lockKey + "' of DistLockRegistry '" + this.name
					+ "' is not held by the current thread");
		}
		return lock;
	}

	/** The distlock lock name of this registry's locks. */
	public String name() {
		return this.name;
	}

	@Override
	public String toString() {
		return "DistLockRegistry '" + this.name + "' on " + this.engine;
	}

}
