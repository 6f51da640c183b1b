/**
 * ShedLock on distlock: {@link io.github.distlock.shedlock.DistLockLockProvider} is a ShedLock lock provider on any
 * distlock lock engine, so {@code @SchedulerLock} jobs lock in the store distlock already uses (Redis, a database).
 *
 * <pre>{@code
 * @Bean
 * DistLockLockProvider lockProvider(LockEngine engine) {
 *     return new DistLockLockProvider(engine);
 * }
 * }</pre>
 *
 * <h2>How ShedLock's settings map</h2>
 * <ul>
 * <li>A run tries the lock once ({@code waitTime} zero): held elsewhere, the run is skipped, as ShedLock does.</li>
 * <li>{@code lockAtMostFor} is the lease, which the engine does not renew: the lock expires then whatever the job is
 * doing. A job that outlives it has lost its lock; the engine tells its {@code LockLostListener} (as for any distlock
 * lock), so the application learns of it, and the job can keep its writes safe with the fencing token.</li>
 * <li>{@code lockAtLeastFor}: a job that ends sooner leaves its lock held until {@code lockAtLeastUntil}, never less.
 * Where the engine can set a held lock's expiry ({@code LockHandle.releaseAfter}: the Redis and JDBC engines), the
 * store frees the lock at that instant whatever becomes of this process, as ShedLock's own providers do. Elsewhere
 * this process releases it then; if it stops before (or cannot reach the store then), the lock stays
 * held until its {@code lockAtMostFor}, as when a process dies during the job (up to a second longer when
 * {@code lockAtLeastFor} is about as long as {@code lockAtMostFor}, whose lease is lengthened so that the release
 * comes before it ends).</li>
 * <li>{@code LockExtender.extendActiveLock} (and {@code KeepAliveLockProvider}) extend the lease, checking that the
 * lock is still this run's; an extension never shortens the lease.</li>
 * <li>A store that cannot be reached, or refuses, throws ShedLock's {@code LockException}, as ShedLock's own providers
 * do: the run is skipped and the scheduler logs it.</li>
 * </ul>
 *
 * <h2>Fencing tokens</h2>
 * Every run's acquisition has a fencing token, larger than every earlier one for the same job:
 * {@link io.github.distlock.shedlock.DistLockShedLock#currentToken()} reads it from inside the job, and
 * {@link io.github.distlock.shedlock.DistLockSimpleLock#token()} from the lock itself.
 *
 * <h2>Where the locks live</h2>
 * A ShedLock lock named {@code report} is the distlock lock with name {@code shedlock} (or the name the provider was
 * given) and key {@code report}: on Redis the key {@code distlock:{shedlock:report}}, in a database a row of the lock
 * table. Locks of {@code @DistributedLock} methods live beside them and never collide with them unless they use the
 * same name.
 */
@NullMarked
package io.github.distlock.shedlock;

import org.jspecify.annotations.NullMarked;
