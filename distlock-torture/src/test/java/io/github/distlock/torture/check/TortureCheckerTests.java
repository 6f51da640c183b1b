package io.github.distlock.torture.check;

import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.github.distlock.torture.check.SyntheticRun.token;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on histories written by hand: a clean one passes, and each kind of flaw planted in an otherwise clean
 * history is caught, and only that one.
 */
class TortureCheckerTests {

	@TempDir
	Path dir;

	private SyntheticRun run;

	@BeforeEach
	void twoWorkersTakingTurns() {
		this.run = new SyntheticRun(this.dir).worker("w1").worker("w2");
		this.run.released("w1", "hot-0", token(100), 0, 1, 20);
		this.run.released("w2", "hot-0", token(30_000), 5, 30, 50);
		this.run.released("w1", "hot-1", token(40_000), 30, 40, 45);
		this.run.timedOut("w2", "hot-1", 100, 2100);
		this.run.keyspace("del", "hot-0", 21);
	}

	@Test
	void aCleanHistoryPasses() {
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures()).containsEntry("acquisitions", "3 {w1=2, w2=1}")
			.containsEntry("calls ended", "{released=3}")
			.containsEntry("lock keys left at the end", "0");
		assertThat(report.figures().get("overlaps by interval")).startsWith("0 ");
	}

	@Test
	void overlappingHoldsWithoutAFaultAreCaughtByIntervalAndTokenOrder() {
		// w2 enters hot-0 at 52 ms while w1, which entered at 51 ms with the smaller token, holds it until 70 ms.
		this.run.released("w1", "hot-0", token(51_000), 50, 51, 70);
		this.run.released("w2", "hot-0", token(52_000), 50, 52, 60);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.OVERLAP_WITHOUT_FAULT,
				Violation.Kind.OVERLAP_UNNOTICED);
		assertThat(report.figures().get("overlaps by interval")).startsWith("1 (0 during faults, 1 outside), total 8.0 ms");
		assertThat(report.figures()).containsEntry("overlaps by token order", "1");
	}

	@Test
	void anOverlapForcedByAFaultWhoseOlderHolderWasToldIsCountedButAllowed() {
		this.run.fault("worker_pause", "w1", 100, 2600);
		long paused = this.run.acquire("w1", "hot-2", token(99_000), 99, 99.5);
		this.run.released("w2", "hot-2", token(1_200_000), 1000, 1200, 1300);
		this.run.lostReported("w1", "hot-2", token(99_000), 2601);
		this.run.end("w1", "lost", paused, "hot-2", token(99_000), 99, 99.5, 2700, "NOT_OWNED");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures().get("overlaps by interval")).startsWith("1 (1 during faults, 0 outside)");
	}

	@Test
	void anOverlapDuringAFaultWhoseOlderHolderWasNeverToldIsCaught() {
		this.run.fault("redis_restart", "redis", 100, 600);
		this.run.released("w1", "hot-2", token(99_000), 99, 99.5, 900);
		this.run.released("w2", "hot-2", token(700_000), 650, 700, 750);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.OVERLAP_UNNOTICED);
	}

	@Test
	void aSecondHolderThatGetsInBeforeTheFirstIsToldIsCaught() {
		// Redis stalls: w1's lease (1 s) runs out unconfirmed, w2 gets the lock at 1200 ms, and w1 hears of its loss
		// only when the stalled renewal's command timeout ends, 300 ms later.
		this.run.fault("redis_pause", "redis", 100, 1100);
		long held = this.run.acquire("w1", "hot-2", token(99_000), 99, 99.5);
		this.run.released("w2", "hot-2", token(1_200_000), 1100, 1200, 1300);
		this.run.lostReported("w1", "hot-2", token(99_000), 1500, "STORE_UNREACHABLE");
		this.run.end("w1", "lost", held, "hot-2", token(99_000), 99, 99.5, 1600, "STORE_UNREACHABLE");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).as(report.render()).containsOnlyKeys(Violation.Kind.OVERLAP_UNREPORTED);
		assertThat(report.violations().get(0).detail()).contains("told of its loss 300.0 ms after");
	}

	@Test
	void aFirstHolderToldBeforeTheSecondGetsInPasses() {
		this.run.fault("redis_pause", "redis", 100, 1100);
		long held = this.run.acquire("w1", "hot-2", token(99_000), 99, 99.5);
		this.run.lostReported("w1", "hot-2", token(99_000), 1099, "STORE_UNREACHABLE");
		this.run.released("w2", "hot-2", token(1_200_000), 1100, 1200, 1300);
		this.run.end("w1", "lost", held, "hot-2", token(99_000), 99, 99.5, 1600, "STORE_UNREACHABLE");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures().get("overlaps whose older holder was told first")).startsWith("1 (0 excused");
	}

	@Test
	void aFirstHolderToldLateIsExcusedWhenTheStoreDroppedItsLockOrItsJvmWasStopped() {
		// Redis restarted empty: w2 gets in at once, long before w1's lease could have run out.
		this.run.fault("redis_restart", "redis", 100, 150);
		long dropped = this.run.acquire("w1", "hot-2", token(99_000), 99, 99.5);
		this.run.released("w2", "hot-2", token(200_000), 150, 200, 300);
		this.run.lostReported("w1", "hot-2", token(99_000), 400);
		this.run.end("w1", "lost", dropped, "hot-2", token(99_000), 99, 99.5, 500, "NOT_OWNED");
		// w1 stopped past its lease: it hears of its loss when it runs again.
		this.run.fault("worker_pause", "w1", 2000, 4000);
		long paused = this.run.acquire("w1", "hot-3", token(1_999_000), 1999, 1999.5);
		this.run.released("w2", "hot-3", token(3_100_000), 3000, 3100, 3200);
		this.run.lostReported("w1", "hot-3", token(1_999_000), 4001);
		this.run.end("w1", "lost", paused, "hot-3", token(1_999_000), 1999, 1999.5, 4100, "NOT_OWNED");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures().get("overlaps whose older holder was told first")).startsWith("0 (2 excused");
	}

	/**
	 * A waiter whose JVM was stopped is handed the lock by a release meanwhile; its lease runs out while it is stopped,
	 * another worker takes the lock, and the first learns of its grant only when it runs again, after the second got
	 * in. It is excused as a stopped holder (its writes are fenced off), though its entry comes after the other's.
	 * (CI, 2026-11-29, short Redis run, seed 19219: flagged OVERLAP_UNREPORTED, the stop looked for only after
	 * the entry.)
	 */
	@Test
	void aWaiterHandedTheLockWhileItsJvmWasStoppedIsExcusedThoughItEntersAfterItsSuccessor() {
		this.run.fault("worker_pause", "w1", 3100, 5600);
		lateWaiterAndItsSuccessor();
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).as(report.render()).doesNotContainKey(Violation.Kind.OVERLAP_UNREPORTED);
		assertThat(report.figures().get("overlaps whose older holder was told first")).startsWith("0 (1 excused");
	}

	@Test
	void aWaiterThatEntersAfterItsSuccessorWithoutAStopIsCaught() {
		lateWaiterAndItsSuccessor();
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).as(report.render()).containsKey(Violation.Kind.OVERLAP_UNREPORTED);
	}

	/**
	 * w1 waits for hot-3 from 3 s; w2 takes it at 4.3 s and holds it to 5.7 s; w1 enters at 5.601 s with the older
	 * token, has both fence writes refused, and is told at 5.64 s.
	 */
	private void lateWaiterAndItsSuccessor() {
		long late = this.run.acquire("w1", "hot-3", token(3_200_000), 3000, 5601);
		this.run.fence("hot-3", token(3_200_000), "w1", late, "enter", false);
		this.run.fence("hot-3", token(3_200_000), "w1", late, "exit", false);
		this.run.lostReported("w1", "hot-3", token(3_200_000), 5640);
		this.run.end("w1", "lost", late, "hot-3", token(3_200_000), 3000, 5601, 5620, "NOT_OWNED");
		this.run.released("w2", "hot-3", token(4_300_000), 4250, 4300, 5700);
	}

	@Test
	void aTokenThatGoesBackwardsIsCaught() {
		// Started at 55 ms, after w2's acquisition at 30 ms was recorded, yet given a smaller token. It writes
		// nothing to the fence, so that only the token rule is broken.
		long call = this.run.acquire("w1", "hot-0", token(20_000), 55, 60);
		this.run.end("w1", "released", call, "hot-0", token(20_000), 55, 60, 70, null);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.TOKEN_NOT_INCREASING);
		assertThat(report.figures()).containsEntry("tokens", "repeated 0, backwards 1");
	}

	@Test
	void aRepeatedTokenIsCaught() {
		this.run.released("w2", "hot-0", token(100), 60, 61, 62);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsKey(Violation.Kind.TOKEN_NOT_INCREASING);
		assertThat(report.figures().get("tokens")).startsWith("repeated 1");
	}

	@Test
	void aHoldNeverReleasedNorReportedLostIsCaught() {
		this.run.acquire("w2", "hot-1", token(3_000_000), 3000, 3001);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.UNRELEASED);
	}

	@Test
	void aKilledWorkersHoldIsAllowedWhenItsLockExpiresWithinALease() {
		this.run.acquire("w2", "hot-1", token(3_000_000), 3000, 3001);
		this.run.fault("worker_kill", "w2", 3005, 3006);
		this.run.keyspace("expired", "hot-1", 3900);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures().get("held by killed workers")).startsWith("1 acquisitions, freed at most 895.0 ms");
	}

	/**
	 * A worker killed just after one thread's section ended and its release handed the lock to another thread: the
	 * first call's release never returned to be recorded, but its section's end was recorded before the release.
	 * (CI, 2026-11-29: flagged OVERLAP_UNNOTICED, the first hold taken to last until the kill.)
	 */
	@Test
	void aKilledWorkersSectionThatEndedBeforeItsReleaseDoesNotOverlapItsSuccessor() {
		long first = this.run.acquire("w2", "hot-1", token(3_000_000), 3000, 3001);
		this.run.fence("hot-1", token(3_000_000), "w2", first, "enter", true);
		this.run.fence("hot-1", token(3_000_000), "w2", first, "exit", true);
		this.run.left("w2", first, "hot-1", 3000, 3005);
		long second = this.run.acquire("w2", "hot-1", token(3_000_010), 3002, 3008);
		this.run.fence("hot-1", token(3_000_010), "w2", second, "enter", true);
		this.run.fault("worker_kill", "w2", 3012, 3013);
		this.run.keyspace("expired", "hot-1", 3900);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures().get("overlaps by interval")).startsWith("0 ");
	}

	@Test
	void aKilledWorkersSectionWithNoRecordOfItsEndIsHeldUntilTheKill() {
		this.run.acquire("w2", "hot-1", token(3_000_000), 3000, 3001);
		this.run.acquire("w2", "hot-1", token(3_000_010), 3002, 3008);
		this.run.fault("worker_kill", "w2", 3012, 3013);
		this.run.keyspace("expired", "hot-1", 3900);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsKey(Violation.Kind.OVERLAP_UNNOTICED);
	}

	@Test
	void aKilledWorkersLockThatOutlivesItsLeaseIsCaught() {
		this.run.acquire("w2", "hot-1", token(3_000_000), 3000, 3001);
		this.run.fault("worker_kill", "w2", 3005, 3006);
		this.run.keyspace("expired", "hot-1", 6000);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.KILLED_HOLDER_LOCK_KEPT);
	}

	@Test
	void aFenceThatAcceptsAWriteOutOfTokenOrderIsCaught() {
		this.run.fence("hot-0", token(50), "w1", 99, "exit", true);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsKey(Violation.Kind.FENCE_OUT_OF_ORDER);
		assertThat(report.figures().get("fence writes")).endsWith("accepted out of token order 1");
	}

	/** w1 holds hot-2 from 5.000 s, its exit write is refused, and it releases at 5.010 s, told of nothing. */
	private CheckReport checkAReleasedHoldWhoseExitWriteWasRefused() {
		long call = this.run.acquire("w1", "hot-2", token(5_000_000), 5000, 5001);
		this.run.fence("hot-2", token(5_000_000), "w1", call, "exit", false);
		this.run.end("w1", "released", call, "hot-2", token(5_000_000), 5000, 5001, 5010, null);
		return TortureChecker.check(this.run.write());
	}

	@Test
	void withoutReplicaAcknowledgementARejectedWriteOfAStaleMastersGrantIsCountedNotFlagged() {
		this.run.fault("sentinel_failover", "redis", 4990, 5200, "from-1-to-2");
		CheckReport report = checkAReleasedHoldWhoseExitWriteWasRefused();
		assertThat(report.counts()).doesNotContainKey(Violation.Kind.FENCE_REJECTION_UNNOTICED);
		assertThat(report.figures().get("fence writes")).contains("1 unnoticed on a stale master");
	}

	@Test
	void withReplicaAcknowledgementAStaleMasterGrantsNothingSoTheSameRejectionIsCaught() {
		this.run.replicasAcked(1);
		this.run.fault("sentinel_failover", "redis", 4990, 5200, "from-1-to-2");
		CheckReport report = checkAReleasedHoldWhoseExitWriteWasRefused();
		assertThat(report.counts()).containsKey(Violation.Kind.FENCE_REJECTION_UNNOTICED);
	}

	@Test
	void aPauseOfASingleRedisLeavesNoStaleMasterSoTheSameRejectionIsCaught() {
		this.run.fault("redis_pause", "redis", 4990, 5200);
		CheckReport report = checkAReleasedHoldWhoseExitWriteWasRefused();
		assertThat(report.counts()).containsKey(Violation.Kind.FENCE_REJECTION_UNNOTICED);
	}

	@Test
	void aRejectedWriteOfAHolderNeverToldOfItsLossIsCaught() {
		long call = this.run.acquire("w1", "hot-2", token(5_000_000), 5000, 5001);
		this.run.fence("hot-2", token(5_000_000), "w1", call, "enter", false);
		this.run.end("w1", "released", call, "hot-2", token(5_000_000), 5000, 5001, 5010, null);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.FENCE_REJECTION_UNNOTICED);
	}

	@Test
	void lockKeysLeftAtTheEndAreCaught() {
		this.run.keyLeft(RunRecordsReader.redisKeyOf("hot-0"));
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.KEYS_LEFT);
	}

	@Test
	void aCallWaitingPastItsBoundIsCaughtUnlessItsWorkerWasPaused() {
		this.run.timedOut("w1", "hot-1", 10_000, 14_000);
		this.run.timedOut("w2", "hot-1", 20_000, 24_000);
		this.run.fault("worker_pause", "w2", 21_000, 23_500);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.CALL_TOO_LONG);
		assertThat(report.violations()).hasSize(1).allMatch((violation) -> violation.detail().startsWith("call w1/"));
	}

	@Test
	void noAcquisitionAfterRedisReturnsIsCaught() {
		this.run.fault("redis_pause", "redis", 10_000, 12_000);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.NO_RECOVERY);
	}

	@Test
	void aWorkerThatNeitherFinishedNorWasKilledIsCaught() {
		CheckReport report = TortureChecker.check(this.run.write("w2"));
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.WORKER_UNFINISHED);
	}

	@Test
	void anOverlapDuringAConnectionKillOnlyIsNotExcused() {
		this.run.fault("client_kill_normal", "workers", 49, 549);
		this.run.released("w1", "hot-0", token(51_000), 50, 51, 70);
		this.run.released("w2", "hot-0", token(52_000), 50, 52, 60);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.OVERLAP_WITHOUT_FAULT,
				Violation.Kind.OVERLAP_UNNOTICED);
	}

	@Test
	void aCallOfAStarvedWorkerMayWaitPastItsBound() {
		this.run.timedOut("w2", "hot-1", 20_000, 24_000);
		this.run.fault("worker_starve", "w2", 21_000, 24_000);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
	}

	@Test
	void aLossThatNothingShowsAndNoFaultExplainsIsCaught() {
		lostDuringTheSection("w1", "hot-2", 5_000, 5_300, "NOT_OWNED");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations().get(0).detail()).startsWith("w1 told NOT_OWNED for hot-2")
			.endsWith("no fault near");
		assertThat(report.figures()).containsEntry("losses justified", "0 of 1 {}");
	}

	@Test
	void aLossNearOnlyAConnectionKillIsCaughtEvenIfTheLockThenLapsed() {
		this.run.fault("client_kill_normal", "workers", 5_100, 5_600);
		lostDuringTheSection("w1", "hot-2", 5_000, 5_300, "NOT_OWNED");
		// Renewals cut off by the kills: the lock really lapsed, but to a connection kill.
		this.run.keyspace("expired", "hot-2", 5_200);
		lostDuringTheSection("w2", "hot-3", 5_400, 5_900, "STORE_UNREACHABLE");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).hasSize(2)
			.allMatch((violation) -> violation.detail().contains("faults near: client_kill_normal"));
	}

	@Test
	void aLossDuringAStalledOrRestartedRedisIsJustified() {
		this.run.fault("redis_pause", "redis", 5_100, 7_100);
		lostDuringTheSection("w1", "hot-2", 5_000, 6_050, "STORE_UNREACHABLE");
		this.run.fault("redis_restart", "redis", 12_000, 12_500);
		lostDuringTheSection("w2", "hot-3", 11_900, 12_700, "NOT_OWNED");
		// Recovery after each.
		this.run.released("w2", "hot-1", token(7_500_000), 7_400, 7_500, 7_510);
		this.run.released("w1", "hot-1", token(13_000_000), 12_900, 13_000, 13_010);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures()).containsEntry("losses justified", "2 of 2 {redis_pause=1, redis_restart=1}");
	}

	@Test
	void aStarvedHoldersLossIsJustifiedButNotAnotherWorkersLossMeanwhile() {
		this.run.fault("worker_starve", "w1", 5_000, 8_000);
		lostDuringTheSection("w1", "hot-2", 4_900, 6_000, "STORE_UNREACHABLE");
		lostDuringTheSection("w2", "hot-3", 5_500, 6_500, "STORE_UNREACHABLE");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).hasSize(1).allMatch((violation) -> violation.detail().startsWith("w2 "));
		assertThat(report.figures()).containsEntry("losses justified", "1 of 2 {own worker_starve=1}");
	}

	@Test
	void aLossAndTheOverlapAfterItAreJustifiedByALongStallTheHolderSawItselfAndByNoShorterOrOtherStall() {
		// w1 saw its JVM stand still for 700 ms (two thirds of the 1 s lease or more) with no fault injected: its
		// renewals could not go out, w2 took the lock, and w1 was told.
		this.run.stalled("w1", 5_100, 5_800);
		long stalled = this.run.acquire("w1", "hot-2", token(5_000_000), 4_999, 5_000);
		this.run.released("w2", "hot-2", token(5_900_000), 5_500, 5_900, 5_950);
		this.run.lostReported("w1", "hot-2", token(5_000_000), 5_810, "STORE_UNREACHABLE");
		this.run.end("w1", "lost", stalled, "hot-2", token(5_000_000), 4_999, 5_000, 6_000, "STORE_UNREACHABLE");
		// A stall shorter than that, or another worker's, explains nothing.
		this.run.stalled("w2", 7_050, 7_300);
		this.run.stalled("w1", 7_100, 7_600);
		lostDuringTheSection("w2", "hot-3", 7_000, 7_700, "STORE_UNREACHABLE");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).hasSize(1)
			.allMatch((violation) -> violation.detail().startsWith("w2 ")
					&& violation.detail().endsWith("; its worker stalled 250.0 ms at +7.050 s"));
		assertThat(report.figures()).containsEntry("losses justified", "1 of 2 {own stall=1}")
			.containsEntry("stalls the workers saw", "3 of 100 ms or more, 1 of two thirds of a lease or more, "
					+ "longest 700.0 ms");
		assertThat(report.figures().get("overlaps by interval")).startsWith("1 (1 during faults, 0 outside");
	}

	@Test
	void aLeaseExpiredReportIsExplainedByNoFault() {
		this.run.fault("worker_pause", "w1", 5_000, 7_500);
		lostDuringTheSection("w1", "hot-2", 4_900, 7_600, "LEASE_EXPIRED");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
	}

	@Test
	void aLossTheKeyspaceOrANewerHolderShowsBeforeTheReportIsJustified() {
		lostDuringTheSection("w1", "hot-2", 5_000, 5_300, "NOT_OWNED");
		this.run.keyspace("expired", "hot-2", 5_200);
		// The server expired the key before it answered "not owned"; the recorder stamped it a little later.
		lostDuringTheSection("w2", "hot-2", 6_000, 6_300, "NOT_OWNED");
		this.run.keyspace("expired", "hot-2", 6_400);
		// w1 still in its section when w2 took the key: the newer holder shows the loss. (Another worker's pause
		// excuses the overlap as such, but w1 was told only after w2 got in: that is caught on its own.)
		this.run.fault("worker_pause", "w2", 9_000, 9_100);
		lostDuringTheSection("w1", "hot-3", 10_000, 10_300, "NOT_OWNED");
		this.run.released("w2", "hot-3", token(10_200_000), 10_150, 10_200, 10_210);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).as(report.render()).containsOnlyKeys(Violation.Kind.OVERLAP_UNREPORTED);
		assertThat(report.figures()).containsEntry("losses justified", "3 of 3 {expired=2, newer holder=1}");
	}

	@Test
	void evidenceAfterTheReportOrFromTheHoldersOwnReleaseJustifiesNothing() {
		// Gave up its lock (its renewals stopped), and only then did the key expire.
		lostDuringTheSection("w1", "hot-2", 5_000, 5_300, "STORE_UNREACHABLE");
		this.run.keyspace("expired", "hot-2", 5_310);
		// Told "not owned" by its own release: the del and the next holder came after its section ended.
		long call = this.run.acquire("w2", "hot-3", token(6_000_000), 5_999, 6_000);
		this.run.fence("hot-3", token(6_000_000), "w2", call, "enter", true);
		this.run.fence("hot-3", token(6_000_000), "w2", call, "exit", true);
		this.run.keyspace("del", "hot-3", 6_011);
		this.run.released("w1", "hot-3", token(6_012_000), 6_005, 6_012, 6_013);
		this.run.lostReported("w2", "hot-3", token(6_000_000), 6_014);
		this.run.end("w2", "lost", call, "hot-3", token(6_000_000), 5_999, 6_000, 6_010, "NOT_OWNED");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).hasSize(2);
	}

	@Test
	void aKilledZooKeeperHoldersLockMayLastUntilItsSessionExpiresButNoLonger() {
		this.run.sessionTimeout(4000);
		this.run.acquire("w2", "hot-1", token(3_000_000), 3000, 3001);
		this.run.fault("worker_kill", "w2", 3005, 3006);
		// No keyspace: the next holder shows the lock free, once the server expired the dead session.
		this.run.released("w1", "hot-1", token(7_000_000), 5_000, 7_100, 7_110);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).as(report.render()).isEmpty();
		assertThat(report.figures().get("held by killed workers")).startsWith("1 acquisitions, freed at most 4095.0 ms")
			.endsWith("(lease 1000 ms, session 4000 ms)");
	}

	@Test
	void aKilledZooKeeperHoldersLockThatOutlivesItsSessionIsCaught() {
		this.run.sessionTimeout(4000);
		this.run.acquire("w2", "hot-1", token(3_000_000), 3000, 3001);
		this.run.fault("worker_kill", "w2", 3005, 3006);
		this.run.released("w1", "hot-1", token(8_500_000), 6_000, 8_500, 8_510);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.KILLED_HOLDER_LOCK_KEPT);
	}

	@Test
	void aStoppedZooKeeperJustifiesLossesButARestartOnItsDataEndsNoSession() {
		this.run.fault("zk_pause", "zookeeper", 5_100, 10_100);
		lostDuringTheSection("w1", "hot-2", 5_000, 6_050, "STORE_UNREACHABLE");
		lostDuringTheSection("w2", "hot-3", 5_050, 10_200, "NOT_OWNED");
		this.run.released("w2", "hot-1", token(10_500_000), 10_400, 10_500, 10_510);
		this.run.fault("zk_restart", "zookeeper", 20_000, 20_600);
		// Its lease ran out before its client was back: given up, not taken.
		lostDuringTheSection("w1", "hot-2", 19_900, 20_950, "STORE_UNREACHABLE");
		// Granted by an answer held up past the lease: lost on arrival.
		lostDuringTheSection("w1", "hot-0", 20_500, 20_505, "STORE_UNREACHABLE");
		// The session and its nodes came back with the server: nothing took this lock.
		lostDuringTheSection("w2", "hot-3", 19_950, 21_000, "NOT_OWNED");
		this.run.released("w1", "hot-1", token(21_500_000), 21_400, 21_500, 21_510);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).hasSize(1)
			.allMatch((violation) -> violation.detail().startsWith("w2 told NOT_OWNED for hot-3")
					&& violation.detail().contains("faults near: zk_restart"));
		assertThat(report.figures()).containsEntry("losses justified", "4 of 5 {zk_pause=2, zk_restart=2}");
		assertThat(report.figures().get("losses on arrival")).startsWith("1 of 5 ");
	}

	@Test
	void aStoppedEtcdJustifiesLossesButARestartOnItsDataEndsNoLease() {
		this.run.fault("etcd_pause", "etcd", 5_100, 10_100);
		lostDuringTheSection("w1", "hot-2", 5_000, 6_050, "STORE_UNREACHABLE");
		lostDuringTheSection("w2", "hot-3", 5_050, 10_200, "NOT_OWNED");
		this.run.released("w2", "hot-1", token(10_500_000), 10_400, 10_500, 10_510);
		this.run.fault("etcd_restart", "etcd", 20_000, 21_000);
		// Unconfirmed past its lease while etcd was down: given up, not taken.
		lostDuringTheSection("w1", "hot-2", 19_900, 20_950, "STORE_UNREACHABLE");
		// The lease and its keys came back with the server: nothing took this lock.
		lostDuringTheSection("w2", "hot-3", 19_950, 21_000, "NOT_OWNED");
		this.run.released("w1", "hot-1", token(21_500_000), 21_400, 21_500, 21_510);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).hasSize(1)
			.allMatch((violation) -> violation.detail().startsWith("w2 told NOT_OWNED for hot-3")
					&& violation.detail().contains("faults near: etcd_restart"));
		assertThat(report.figures()).containsEntry("losses justified", "3 of 4 {etcd_pause=2, etcd_restart=1}");
		assertThat(report.figures()).hasEntrySatisfying(
				report.figures().keySet().stream().filter((name) -> name.startsWith("tokens over etcd_restart"))
					.findFirst().orElseThrow(),
				(tokens) -> assertThat(tokens).endsWith(" revisions)"));
	}

	@Test
	void aKilledLeaderJustifiesUnconfirmedLeasesButEndsNoSessionUnlessTheEnsembleStayedLeaderlessLonger() {
		this.run.sessionTimeout(4_000);
		this.run.fault("leader_kill", "zookeeper", 5_000, 7_000,
				"leader-zk2-killed-zk3-elected-after-600-ms-zk2-rejoined-after-2000-ms");
		// Its lease ran out while its server looked for a new leader: given up, not taken.
		lostDuringTheSection("w1", "hot-2", 4_900, 5_950, "STORE_UNREACHABLE");
		// The survivors have every node and the new leader kept every session: nothing took this lock.
		lostDuringTheSection("w2", "hot-3", 4_950, 6_000, "NOT_OWNED");
		this.run.released("w1", "hot-1", token(7_500_000), 7_400, 7_500, 7_510);
		// No leader for longer than the sessions (4 s): the sessions may have ended, their nodes with them.
		this.run.fault("leader_kill", "etcd", 20_000, 26_000,
				"leader-m0-killed-m1-elected-after-4500-ms-m0-rejoined-after-6000-ms");
		lostDuringTheSection("w2", "hot-3", 19_950, 24_700, "NOT_OWNED");
		this.run.released("w1", "hot-1", token(26_500_000), 26_400, 26_500, 26_510);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).hasSize(1)
			.allMatch((violation) -> violation.detail().startsWith("w2 told NOT_OWNED for hot-3")
					&& violation.detail().contains("faults near: leader_kill zookeeper"));
		assertThat(report.figures()).containsEntry("losses justified", "2 of 3 {leader_kill=2}");
		assertThat(report.figures()).hasEntrySatisfying(
				report.figures().keySet().stream().filter((name) -> name.startsWith("tokens over leader_kill zookeeper"))
					.findFirst().orElseThrow(),
				(tokens) -> assertThat(tokens).endsWith(" zxids)"));
	}

	@Test
	void aCallHeldUpByAStoppedZooKeeperIsTimedFromItsReturnButOneHeldUpByRedisIsNot() {
		this.run.fault("zk_pause", "zookeeper", 5_000, 10_000);
		this.run.timedOut("w2", "hot-1", 4_800, 10_300);
		this.run.timedOut("w1", "hot-2", 4_900, 14_000);
		this.run.released("w1", "hot-0", token(10_500_000), 10_400, 10_500, 10_510);
		this.run.fault("redis_pause", "redis", 20_100, 22_100);
		this.run.timedOut("w2", "hot-0", 20_000, 25_000);
		this.run.released("w1", "hot-0", token(22_500_000), 22_400, 22_500, 22_510);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.CALL_TOO_LONG);
		assertThat(report.violations()).extracting(Violation::detail)
			.containsExactlyInAnyOrder(
					"call w1/6 on hot-2 gave up only after 4000.0 ms counted from the lock server's return "
							+ "(9100.0 ms in all)",
					"call w2/8 on hot-0 gave up only after 5000.0 ms");
		assertThat(report.figures().get("calls held up by the lock server")).startsWith("2 waits and releases");
	}

	/** A call whose lock is reported lost in the middle of its section, which then ends with the loss. */
	@Test
	void aGrantLostOnArrivalDuringAStoreStallIsJustifiedAndHoldsNothing() {
		this.run.fault("db_stall", "database", 5_000, 6_500);
		// Waiting from before the stall; the grant came after the lease had run out, and the section never ran.
		this.run.lostOnArrival("w1", "hot-1", token(6_400_000), 4_900, 6_600, "STORE_UNREACHABLE");
		// The next holder entered straight after: no overlap, since the refused call held nothing.
		this.run.released("w2", "hot-1", token(6_601_000), 4_950, 6_601, 6_700);
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.violations()).isEmpty();
		assertThat(report.figures()).containsEntry("losses justified", "1 of 1 {db_stall=1}");
		assertThat(report.figures().get("refused on arrival")).startsWith("1 ");
		assertThat(report.figures().get("losses on arrival")).startsWith("1 of 1 ");
	}

	@Test
	void aGrantLostOnArrivalWithNothingToExplainItIsAFalseAlarm() {
		this.run.lostOnArrival("w1", "hot-1", token(6_400_000), 4_900, 6_600, "STORE_UNREACHABLE");
		CheckReport report = TortureChecker.check(this.run.write());
		assertThat(report.counts()).containsOnlyKeys(Violation.Kind.LOSS_UNJUSTIFIED);
		assertThat(report.violations()).singleElement()
			.satisfies((violation) -> assertThat(violation.detail()).startsWith("w1 told STORE_UNREACHABLE for hot-1")
				.contains("nothing shows the lock gone before"));
	}

	private void lostDuringTheSection(String worker, String key, double acquired, double reported, String reason) {
		long token = token((long) (acquired * 1000));
		long call = this.run.acquire(worker, key, token, acquired - 1, acquired);
		this.run.fence(key, token, worker, call, "enter", true);
		this.run.fence(key, token, worker, call, "exit", true);
		this.run.lostReported(worker, key, token, reported, reason);
		this.run.end(worker, "lost", call, key, token, acquired - 1, acquired, reported + 50, reason);
	}

}
