package io.github.distlock.torture.check;

import java.util.List;
import java.util.OptionalLong;

/**
 * A second holder gets in only after the first was told: when an overlap begins (the newer holder learns it holds the
 * lock), the older one's loss must have been reported already. The holder's own clock tells it when its lease ran out,
 * before the store lets the lock expire, whatever the store does meanwhile; a watchdog that waits on the store instead
 * tells it late, while the second holder works.
 * <p>
 * Two cases are not held to it, as nothing inside the holder's JVM can tell it sooner: the older holder's JVM was
 * stopped or starved while it held the lock (it is told when it runs again, and the fence covers its writes), and a
 * fault that drops held locks from the store (a restart of an empty Redis, a failover to a replica without the last
 * writes) let the newer holder in before the older's lease could have run out, within one lease of the fault's start.
 * Either still needs the older holder told at some point, which {@link OverlapCheck} asks.
 */
final class ToldBeforeOverlapCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		int told = 0;
		int excused = 0;
		for (List<Acquisition> ofKey : records.byKey().values()) {
			for (Overlap overlap : OverlapFinder.byIntervals(records, ofKey)) {
				Acquisition older = overlap.older();
				long entered = overlap.newer().acquiredNanos();
				OptionalLong toldAt = records.toldLostAt(older);
				if (toldAt.isEmpty() && !records.fencedOff(older)) {
					// Never told, nor fenced off: OverlapCheck's finding (OVERLAP_UNNOTICED), not said twice.
					continue;
				}
				if (toldAt.isPresent() && toldAt.getAsLong() - entered <= 0) {
					told++;
				}
				else if (stoppedWhileHolding(records, older, entered)
						|| records.keysDroppedShortlyBefore(entered).isPresent()) {
					excused++;
				}
				else {
					report.violation(Violation.Kind.OVERLAP_UNREPORTED, older + " was "
							+ (toldAt.isPresent() ? "told of its loss " + Check.millis(toldAt.getAsLong() - entered)
									+ " after " : "never told of its loss, though ")
							+ overlap.newer() + " got the lock at " + Check.at(records, entered));
				}
			}
		}
		report.figure("overlaps whose older holder was told first", told + " (" + excused
				+ " excused: that holder's JVM stopped or starved, or the store dropped the lock)");
	}

	/**
	 * Whether the older holder's JVM was stopped or starved while it held the lock. An older holder that entered after
	 * the newer one learnt of its grant late: the store may have granted it the lock (a hand-over to a queued waiter)
	 * while its JVM was stopped, so the time that counts runs from its call's start, not from its entry.
	 */
	private static boolean stoppedWhileHolding(RunRecords records, Acquisition older, long newerEntered) {
		if (older.acquiredNanos() - newerEntered > 0) {
			return records.stalledBetween(older.worker(), older.startNanos(), older.acquiredNanos());
		}
		return records.stalledBetween(older.worker(), older.acquiredNanos(), newerEntered);
	}

}
