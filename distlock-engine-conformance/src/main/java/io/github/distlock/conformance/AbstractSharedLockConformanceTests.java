package io.github.distlock.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockMode;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What an engine with read/write locks and permits must do with them, run against a real store: readers share and
 * writers exclude, waiters are served first come first served (so writers never starve), permits never admit more
 * holders than their number, and every holder (each reader, each permit) has its own token, renewal and loss
 * detection. A backend that offers these lock shapes extends this class beside
 * {@link AbstractLockEngineConformanceTests}.
 */
public abstract class AbstractSharedLockConformanceTests extends EngineSuiteSupport {

	private static final String NAME = "shared-conformance";

	/**
	 * Removes every holder of the read/write lock (permits: {@code false}) or of the permits ({@code true}) of the
	 * name and key in the store, as an operator or a failover would.
	 */
	protected abstract void removeHolders(String name, String key, boolean permits);

	/** Returns once this many callers wait in the store's queue for the shared lock of the name and key. */
	protected abstract void awaitQueued(String name, String key, boolean permits, int waiters) throws Exception;

	protected static LockRequest read(String key, Duration wait) {
		return new LockRequest(NAME, key, Duration.ofSeconds(10), wait, true, null, LockMode.READ, 0);
	}

	protected static LockRequest write(String key, Duration wait) {
		return new LockRequest(NAME, key, Duration.ofSeconds(10), wait, true, null, LockMode.WRITE, 0);
	}

	protected static LockRequest permit(String key, int permits, Duration lease, Duration wait) {
		return new LockRequest(NAME, key, lease, wait, true, null, LockMode.EXCLUSIVE, permits);
	}

	private Future<LockHandle> inBackground(LockEngine engine, LockRequest request) {
		return this.executor.submit(() -> engine.acquire(request));
	}

	@Test
	void readersShareTheLockAndAWriterExcludesThem() throws Exception {
		LockEngine one = engine();
		LockEngine two = engine();
		LockHandle first = one.acquire(read("rw", Duration.ZERO));
		LockHandle second = two.acquire(read("rw", Duration.ZERO));
		assertThat(first.mode()).isEqualTo(LockMode.READ);
		assertThat(second.token()).isGreaterThan(first.token());
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine().acquire(write("rw", Duration.ZERO)));

		assertThat(first.release()).isTrue();
		assertThatExceptionOfType(LockAcquisitionException.class).as("one reader is left")
			.isThrownBy(() -> engine().acquire(write("rw", Duration.ZERO)));
		assertThat(second.release()).isTrue();

		LockHandle writer = one.acquire(write("rw", Duration.ZERO));
		assertThat(writer.mode()).isEqualTo(LockMode.WRITE);
		assertThat(writer.token()).isGreaterThan(second.token());
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> two.acquire(read("rw", Duration.ZERO)));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> two.acquire(write("rw", Duration.ZERO)));
		assertThat(writer.release()).isTrue();
		two.acquire(read("rw", Duration.ZERO)).release();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void theReadWriteLockIsNotTheExclusiveLockOfTheSameNameAndKey() throws Exception {
		LockEngine engine = engine();
		LockHandle exclusive = engine.acquire(new LockRequest(NAME, "apart", Duration.ofSeconds(10), Duration.ZERO,
				true, null));
		LockHandle writer = engine().acquire(write("apart", Duration.ZERO));
		LockHandle permit = engine().acquire(permit("apart", 1, Duration.ofSeconds(10), Duration.ZERO));
		assertThat(List.of(exclusive.release(), writer.release(), permit.release())).containsOnly(true);
	}

	@Test
	void aWaitingWriterQueuesNewReadersBehindIt() throws Exception {
		LockHandle reader = engine().acquire(read("fifo", Duration.ZERO));
		Future<LockHandle> writer = inBackground(engine(), write("fifo", Duration.ofSeconds(20)));
		awaitQueued(NAME, "fifo", false, 1);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.as("a new reader may not pass the waiting writer, though only readers hold the lock")
			.isThrownBy(() -> engine().acquire(read("fifo", Duration.ZERO)));
		Future<LockHandle> laterReader = inBackground(engine(), read("fifo", Duration.ofSeconds(20)));
		awaitQueued(NAME, "fifo", false, 2);

		assertThat(reader.release()).isTrue();
		LockHandle written = writer.get(10, TimeUnit.SECONDS);
		assertThat(written.token()).isGreaterThan(reader.token());
		assertThat(laterReader.isDone()).as("the later reader waits for the writer").isFalse();
		assertThat(written.release()).isTrue();
		LockHandle read = laterReader.get(10, TimeUnit.SECONDS);
		assertThat(read.token()).isGreaterThan(written.token());
		assertThat(read.release()).isTrue();
	}

	@Test
	void aKeyWithSeparatorsBracesSpacesAndLineBreaksIsHandedOverLikeAnyOther() throws Exception {
		String key = "a b:{c}\r\n d%3A";
		LockHandle writer = engine().acquire(write(key, Duration.ZERO));
		Future<LockHandle> reader = inBackground(engine(), read(key, Duration.ofSeconds(20)));
		awaitQueued(NAME, key, false, 1);
		LockHandle lookAlike = engine().acquire(write(key.replace("%3A", ":"), Duration.ZERO));
		assertThat(lookAlike.release()).as("a look-alike key is another lock").isTrue();
		assertThat(writer.release()).isTrue();
		LockHandle read = reader.get(10, TimeUnit.SECONDS);
		assertThat(read.key()).isEqualTo(key);
		assertThat(read.release()).isTrue();
	}

	@Test
	void readersQueuedBehindAWriterAreAdmittedTogetherWithTheirOwnTokens() throws Exception {
		LockHandle writer = engine().acquire(write("together", Duration.ZERO));
		Future<LockHandle> first = inBackground(engine(), read("together", Duration.ofSeconds(20)));
		awaitQueued(NAME, "together", false, 1);
		Future<LockHandle> second = inBackground(engine(), read("together", Duration.ofSeconds(20)));
		awaitQueued(NAME, "together", false, 2);

		assertThat(writer.release()).isTrue();
		LockHandle one = first.get(10, TimeUnit.SECONDS);
		LockHandle two = second.get(10, TimeUnit.SECONDS);
		assertThat(one.isLost()).isFalse();
		assertThat(two.isLost()).isFalse();
		assertThat(one.verify()).as("both hold the lock at once").isTrue();
		assertThat(two.verify()).isTrue();
		assertThat(one.token()).isGreaterThan(writer.token());
		assertThat(two.token()).isGreaterThan(one.token());
		assertThat(List.of(one.release(), two.release())).containsOnly(true);
	}

	@Test
	void readersQueuedBehindAWriterThatGivesUpAreAdmittedAtOnce() throws Exception {
		LockHandle reader = engine().acquire(read("gave-up", Duration.ZERO));
		Future<LockHandle> writer = inBackground(engine(), write("gave-up", Duration.ofMillis(700)));
		awaitQueued(NAME, "gave-up", false, 1);
		Future<LockHandle> laterReader = inBackground(engine(), read("gave-up", Duration.ofSeconds(20)));
		awaitQueued(NAME, "gave-up", false, 2);

		assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
			.isThrownBy(() -> writer.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockAcquisitionException.class);
		LockHandle admitted = laterReader.get(5, TimeUnit.SECONDS);
		assertThat(reader.verify()).as("admitted beside the first reader, which still holds").isTrue();
		assertThat(List.of(admitted.release(), reader.release())).containsOnly(true);
	}

	@Test
	void readersAndWritersOnSeveralEnginesNeverOverlapWrongly() throws Exception {
		List<LockEngine> instances = List.of(engine(), engine(), engine());
		AtomicInteger readers = new AtomicInteger();
		AtomicInteger writers = new AtomicInteger();
		AtomicInteger violations = new AtomicInteger();
		AtomicInteger maxReaders = new AtomicInteger();
		List<Future<?>> futures = new ArrayList<>();
		for (int t = 0; t < 9; t++) {
			LockEngine engine = instances.get(t % instances.size());
			boolean writing = t % 3 == 0;
			futures.add(this.executor.submit(() -> {
				for (int i = 0; i < 20; i++) {
					LockHandle handle = engine.acquire(writing ? write("history", Duration.ofSeconds(60))
							: read("history", Duration.ofSeconds(60)));
					try {
						if (writing) {
							if (writers.incrementAndGet() != 1 || readers.get() != 0) {
								violations.incrementAndGet();
							}
							Thread.yield();
							writers.decrementAndGet();
						}
						else {
							int now = readers.incrementAndGet();
							maxReaders.accumulateAndGet(now, Math::max);
							if (writers.get() != 0) {
								violations.incrementAndGet();
							}
							Thread.sleep(1);
							readers.decrementAndGet();
						}
					}
					finally {
						handle.release();
					}
				}
				return null;
			}));
		}
		for (Future<?> future : futures) {
			future.get(120, TimeUnit.SECONDS);
		}
		assertThat(violations).hasValue(0);
		assertThat(maxReaders.get()).as("readers did share the lock").isGreaterThan(1);
		assertThat(this.lost).isEmpty();
	}

	@Test
	void everyReaderIsRenewedAndEveryRemovedReaderIsReportedLost() throws Exception {
		LockRequest shortLease = new LockRequest(NAME, "renewed", Duration.ofMillis(600), Duration.ZERO, true, null,
				LockMode.READ, 0);
		LockHandle one = engine().acquire(shortLease);
		LockHandle two = engine().acquire(shortLease);
		// Three leases: only renewal keeps them.
		Thread.sleep(1800);
		assertThat(one.verify()).isTrue();
		assertThat(two.verify()).isTrue();
		assertThat(this.lost).isEmpty();

		removeHolders(NAME, "renewed", false);
		List<LostLock> losses = List.of(awaitLoss(), awaitLoss());
		assertThat(losses).extracting(LostLock::token).containsExactlyInAnyOrder(one.token(), two.token());
		assertThat(losses).extracting(LostLock::reason).containsOnly(LostLock.Reason.NOT_OWNED);
		assertThat(one.release()).isFalse();
		assertThat(two.release()).isFalse();
	}

	@Test
	void aReaderIsExtendedAndVerifiedByItself() throws Exception {
		LockHandle reader = engine().acquire(new LockRequest(NAME, "extended", Duration.ofMillis(300), Duration.ZERO,
				false, null, LockMode.READ, 0));
		LockHandle other = engine().acquire(read("extended", Duration.ZERO));
		assertThat(reader.extend(Duration.ofSeconds(5))).isTrue();
		Thread.sleep(600);
		assertThat(reader.verify()).as("outlived its lease of 300 ms through the extension").isTrue();
		assertThat(other.release()).isTrue();
		assertThat(reader.verify()).as("another reader's release leaves it held").isTrue();
		assertThat(reader.release()).isTrue();
		assertThat(reader.extend(Duration.ofSeconds(5))).isFalse();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void permitsAdmitAtMostTheirNumberAndHandOverOnRelease() throws Exception {
		LockRequest twoPermits = permit("limit", 2, Duration.ofSeconds(10), Duration.ZERO);
		LockHandle first = engine().acquire(twoPermits);
		LockHandle second = engine().acquire(twoPermits);
		assertThat(first.permits()).isEqualTo(2);
		assertThat(second.token()).isGreaterThan(first.token());
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine().acquire(twoPermits));

		Future<LockHandle> waiting = inBackground(engine(), permit("limit", 2, Duration.ofSeconds(10),
				Duration.ofSeconds(20)));
		awaitQueued(NAME, "limit", true, 1);
		assertThat(first.release()).isTrue();
		LockHandle third = waiting.get(10, TimeUnit.SECONDS);
		assertThat(third.token()).isGreaterThan(second.token());
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine().acquire(twoPermits));
		assertThat(List.of(second.release(), third.release())).containsOnly(true);
		assertThat(this.lost).isEmpty();
	}

	@Test
	void permitHoldersOnSeveralEnginesNeverExceedTheLimit() throws Exception {
		List<LockEngine> instances = List.of(engine(), engine(), engine());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<Future<?>> futures = new ArrayList<>();
		for (int t = 0; t < 9; t++) {
			LockEngine engine = instances.get(t % instances.size());
			futures.add(this.executor.submit(() -> {
				for (int i = 0; i < 15; i++) {
					LockHandle handle = engine.acquire(permit("crowd", 3, Duration.ofSeconds(10),
							Duration.ofSeconds(60)));
					try {
						most.accumulateAndGet(inside.incrementAndGet(), Math::max);
						Thread.sleep(2);
						inside.decrementAndGet();
					}
					finally {
						handle.release();
					}
				}
				return null;
			}));
		}
		for (Future<?> future : futures) {
			future.get(120, TimeUnit.SECONDS);
		}
		assertThat(most.get()).isLessThanOrEqualTo(3).isGreaterThan(1);
	}

	@Test
	void aCrashedPermitHolderFreesItsPermitWithinOneLease() throws Exception {
		LockEngine crashing = newEngine(this.lost::add);
		crashing.acquire(permit("crash", 1, Duration.ofMillis(500), Duration.ZERO));
		long crashedAt = System.nanoTime();
		crash(crashing);
		LockHandle next = engine().acquire(permit("crash", 1, Duration.ofSeconds(10), Duration.ofSeconds(5)));
		assertThat(Duration.ofNanos(System.nanoTime() - crashedAt)).isLessThan(Duration.ofMillis(1500));
		assertThat(next.release()).isTrue();
	}

	@Test
	void aRemovedPermitIsReportedLost() throws Exception {
		LockHandle held = engine().acquire(permit("removed", 2, Duration.ofMillis(600), Duration.ZERO));
		removeHolders(NAME, "removed", true);
		LostLock loss = awaitLoss();
		assertThat(loss.token()).isEqualTo(held.token());
		assertThat(held.isLost()).isTrue();
		assertThat(held.release()).isFalse();
	}

	/** The next reported loss, within a renewal interval of the shortest lease these tests use and some slack. */
	private LostLock awaitLoss() throws InterruptedException {
		return awaitLoss(Duration.ofSeconds(2));
	}

}
