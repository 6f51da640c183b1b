package io.github.distlock.torture.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Overlapping holds: counted and measured, never hidden. An overlap is allowed only where a fault forced it (or the
 * older holder's worker saw its own JVM stall long enough to lose the lock: {@link RunRecords#longStall}), and then
 * only if its older holder (the smaller token) was told it lost the lock or had a write refused by the fence.
 */
final class OverlapCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		List<Overlap> overlaps = new ArrayList<>();
		int byTokenOrder = 0;
		for (List<Acquisition> ofKey : records.byKey().values()) {
			overlaps.addAll(OverlapFinder.byIntervals(records, ofKey));
			byTokenOrder += OverlapFinder.byTokenOrder(records, ofKey).size();
		}
		long total = 0;
		long longest = 0;
		int duringFaults = 0;
		for (Overlap overlap : overlaps) {
			total += overlap.lengthNanos();
			longest = Math.max(longest, overlap.lengthNanos());
			Optional<FaultRecord> fault = records.faultAround(overlap.fromNanos(), overlap.toNanos());
			// Or the older holder's own JVM stalled, unbidden, long enough to miss its renewals.
			boolean ownStall = records.longStall(overlap.older().worker(), overlap.older().acquiredNanos(),
					overlap.fromNanos()).isPresent();
			if (fault.isPresent() || ownStall) {
				duringFaults++;
			}
			else {
				report.violation(Violation.Kind.OVERLAP_WITHOUT_FAULT, describe(records, overlap));
			}
			if (!records.reportedLost(overlap.older()) && !records.fencedOff(overlap.older())) {
				report.violation(Violation.Kind.OVERLAP_UNNOTICED, describe(records, overlap)
						+ fault.map((f) -> " during " + f).orElse(""));
			}
		}
		report.figure("overlaps by interval", overlaps.size() + " (" + duringFaults + " during faults, "
				+ (overlaps.size() - duringFaults) + " outside), total " + Check.millis(total) + ", longest "
				+ Check.millis(longest));
		report.figure("overlaps by token order", byTokenOrder);
	}

	private static String describe(RunRecords records, Overlap overlap) {
		return overlap.older() + " and " + overlap.newer() + " both held it from " + Check.at(records,
				overlap.fromNanos()) + " for " + Check.millis(overlap.lengthNanos()) + "; older "
				+ (records.reportedLost(overlap.older()) ? "reported lost" : "not reported lost")
				+ (records.fencedOff(overlap.older()) ? ", fenced off" : "");
	}

}
