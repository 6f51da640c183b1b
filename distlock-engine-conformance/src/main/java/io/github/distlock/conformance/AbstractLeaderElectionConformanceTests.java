package io.github.distlock.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.leader.LeaderElection;
import io.github.distlock.leader.Leadership;
import io.github.distlock.leader.LeadershipListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election on every engine, with two candidates as two application instances: one leads at a time, a leader
 * that leaves is revoked before the other is granted a larger epoch (and only once the work it lent its term to is
 * done), and a leader whose lock is deleted from outside is revoked as lost, the work holding its term told first.
 * Part of {@link AbstractLockEngineConformanceTests}, which engines extend.
 */
public abstract class AbstractLeaderElectionConformanceTests extends AbstractLeaseConformanceTests {

	private static final String ELECTION = "conformance-election";

	private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

	private final List<Long> epochs = new ArrayList<>();

	private final List<LeaderElection> elections = new ArrayList<>();

	@BeforeEach
	void forgetEarlierEvents() {
		// A suite may run its tests on one instance (a class per store, say): what an earlier test heard is not theirs.
		this.events.clear();
		synchronized (this.epochs) {
			this.epochs.clear();
		}
	}

	@AfterEach
	void closeElections() {
		// Before the suite crashes the engines: a candidate left standing would keep trying on a crashed engine.
		this.elections.forEach(LeaderElection::close);
		this.elections.clear();
	}

	private LeaderElection candidate(String name, LockEngine engine, Duration lease) {
		LeaderElection election = new LeaderElection(engine, ELECTION, lease, Duration.ofMillis(100),
				new LeadershipListener() {

					@Override
					public void granted(Leadership leadership) {
						synchronized (AbstractLeaderElectionConformanceTests.this.epochs) {
							AbstractLeaderElectionConformanceTests.this.epochs.add(leadership.epoch());
						}
						AbstractLeaderElectionConformanceTests.this.events.add("granted " + name);
					}

					@Override
					public void revoked(Leadership leadership, Revocation reason) {
						AbstractLeaderElectionConformanceTests.this.events.add("revoked " + name + " " + reason);
					}

				});
		this.elections.add(election);
		return election;
	}

	private static LockHandle shareOf(LeaderElection leader) {
		LockHandle share = leader.shareTerm();
		assertThat(share).as("a share of the leader's term").isNotNull();
		return Objects.requireNonNull(share);
	}

	private String nextEvent() throws InterruptedException {
		String event = this.events.poll(30, TimeUnit.SECONDS);
		assertThat(event).as("a leadership event within 30 s").isNotNull();
		return event;
	}

	private List<Long> epochs() {
		synchronized (this.epochs) {
			return List.copyOf(this.epochs);
		}
	}

	@Test
	void oneCandidateLeadsAndTheOtherIsGrantedALargerEpochOnlyAfterTheLeaderIsRevoked() throws Exception {
		Duration lease = Duration.ofSeconds(10);
		LeaderElection first = candidate("first", engine(), lease);
		LeaderElection second = candidate("second", engine(), lease);
		first.start();
		assertThat(nextEvent()).isEqualTo("granted first");
		second.start();
		// The second waits in the lock's queue for as long as the first leads.
		assertThat(this.events.poll(500, TimeUnit.MILLISECONDS)).as("events while the first leads").isNull();
		assertThat(first.isLeader()).isTrue();
		assertThat(second.isLeader()).isFalse();
		first.close();
		assertThat(List.of(nextEvent(), nextEvent())).as("the revocation, then the grant")
			.containsExactly("revoked first SHUT_DOWN", "granted second");
		assertThat(second.isLeader()).isTrue();
		assertThat(epochs()).hasSize(2);
		assertThat(epochs().get(1)).as("the second leader's epoch").isGreaterThan(epochs().get(0));
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aLeaderWhoseLockIsDeletedIsRevokedAsLost() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		LeaderElection first = candidate("first", engine(), lease);
		first.start();
		assertThat(nextEvent()).isEqualTo("granted first");
		deleteLock(LeaderElection.LOCK_NAME, ELECTION);
		// Found at the next renewal (a third of the lease), or at once by an engine that watches its lock.
		assertThat(nextEvent()).isEqualTo("revoked first LOST");
		assertThat(awaitLoss(lease.multipliedBy(2)).key()).isEqualTo(ELECTION);
		// The candidate stands again and, alone, is granted a new term with a larger epoch.
		assertThat(nextEvent()).isEqualTo("granted first");
		assertThat(epochs().get(1)).isGreaterThan(epochs().get(0));
		assertThat(first.isLeader()).isTrue();
	}

	@Test
	void aYieldedTermKeepsItsLockUntilTheWorkHoldingItsSharesIsDone() throws Exception {
		Duration lease = Duration.ofSeconds(10);
		LeaderElection first = candidate("first", engine(), lease);
		LeaderElection second = candidate("second", engine(), lease);
		first.start();
		assertThat(nextEvent()).isEqualTo("granted first");
		LockHandle job = shareOf(first);
		LockHandle otherJob = shareOf(first);
		assertThat(job.token()).as("the share's token, the term's epoch").isEqualTo(epochs().get(0));
		assertThat(second.shareTerm()).as("a share where the candidate does not lead").isNull();
		second.start();
		assertThat(first.yieldLeadership()).isTrue();
		assertThat(nextEvent()).isEqualTo("revoked first YIELDED");
		assertThat(first.shareTerm()).as("a share of a revoked term").isNull();
		assertThat(job.release()).isTrue();
		assertThat(job.release()).as("a share given back twice").isFalse();
		assertThat(lockExists(LeaderElection.LOCK_NAME, ELECTION)).as("the lock, while a share is out").isTrue();
		assertThat(second.isLeader()).isFalse();
		// Marked before the last share goes back: a grant that came earlier would come before the mark.
		this.events.add("last share back");
		assertThat(otherJob.release()).isTrue();
		assertThat(List.of(nextEvent(), nextEvent())).containsExactly("last share back", "granted second");
		assertThat(epochs().get(1)).isGreaterThan(epochs().get(0));
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aLostTermTellsTheWorkHoldingItsSharesBeforeTheListener() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		LeaderElection first = candidate("first", engine(), lease);
		first.start();
		assertThat(nextEvent()).isEqualTo("granted first");
		LockHandle job = shareOf(first);
		CountDownLatch told = new CountDownLatch(1);
		job.whenLost(() -> {
			this.events.add("job told");
			told.countDown();
		});
		deleteLock(LeaderElection.LOCK_NAME, ELECTION);
		assertThat(told.await(lease.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS)).as("the job told").isTrue();
		assertThat(List.of(nextEvent(), nextEvent())).containsExactly("job told", "revoked first LOST");
		assertThat(job.isLost()).isTrue();
		assertThat(awaitLoss(lease.multipliedBy(2)).key()).as("the engine's own report").isEqualTo(ELECTION);
		CountDownLatch late = new CountDownLatch(1);
		job.whenLost(late::countDown);
		assertThat(late.getCount()).as("an action registered after the loss, run at once").isZero();
		assertThat(job.release()).isTrue();
		// Alone, the candidate stands again and is granted a new term.
		assertThat(nextEvent()).isEqualTo("granted first");
		assertThat(epochs().get(1)).isGreaterThan(epochs().get(0));
	}

	/**
	 * A share given back at the moment the term's loss is found (the lock deleted, then checked): the term ends once,
	 * told once, and the candidate stands again, whichever comes first; with the term yielded just before (the share
	 * is the last one, whose return would release the lock) and without. A term that waited for a share already back,
	 * or for a loss already told, would leave the candidate out for good.
	 */
	@Test
	void aShareGivenBackAsTheTermIsLostEndsTheTermOnce() throws Exception {
		Duration lease = Duration.ofSeconds(10);
		LeaderElection first = candidate("first", engine(), lease);
		first.start();
		ExecutorService racers = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 6; round++) {
				assertThat(nextEvent()).as("round %d", round).isEqualTo("granted first");
				LockHandle job = shareOf(first);
				AtomicInteger told = new AtomicInteger();
				job.whenLost(told::incrementAndGet);
				boolean yielded = round % 2 == 0;
				if (yielded) {
					assertThat(first.yieldLeadership()).isTrue();
					assertThat(nextEvent()).isEqualTo("revoked first YIELDED");
				}
				deleteLock(LeaderElection.LOCK_NAME, ELECTION);
				CyclicBarrier start = new CyclicBarrier(2);
				Future<Boolean> givenBack = racers.submit(() -> {
					start.await();
					return job.release();
				});
				Future<Boolean> checked = racers.submit(() -> {
					start.await();
					return job.verify();
				});
				assertThat(givenBack.get(30, TimeUnit.SECONDS)).as("the share given back").isTrue();
				assertThat(checked.get(30, TimeUnit.SECONDS)).as("the deleted lock checked").isFalse();
				assertThat(told.get()).as("the share's loss actions, run at most once").isLessThanOrEqualTo(1);
				if (!yielded) {
					// The share's return leaves the lock with the term, whose loss the check then finds.
					assertThat(nextEvent()).isEqualTo("revoked first LOST");
					assertThat(awaitLoss(lease).key()).isEqualTo(ELECTION);
				}
				// Yielded, the last share's return releases the lock: found gone by that release or by the check, or
				// by neither if the release came first (a released lock has nothing left to report).
				this.lost.clear();
			}
		}
		finally {
			racers.shutdownNow();
		}
		// Each round's term ended once: no revocation or grant beyond those taken above, bar the next grant.
		assertThat(nextEvent()).isEqualTo("granted first");
		assertThat(this.events).isEmpty();
		assertThat(epochs()).doesNotHaveDuplicates().isSorted();
	}

}
