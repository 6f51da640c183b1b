package io.github.distlock.torture.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tokens never repeat nor go backwards. The lock server's acquisition happened somewhere between a call's start
 * and the moment the section recorded it; so when one acquisition was recorded before another call even started,
 * its token must be the smaller. This holds across restarts of the lock server too (Redis restarted empty, ZooKeeper
 * or etcd on its data, whose transaction ids or revisions go on), which the figures single out.
 */
final class TokenOrderCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		int backwards = 0;
		int repeated = 0;
		for (List<Acquisition> ofKey : records.byKey().values()) {
			repeated += repeats(ofKey, report);
			backwards += backwards(records, ofKey, report);
		}
		report.figure("tokens", "repeated " + repeated + ", backwards " + backwards);
		for (FaultRecord fault : records.faults()) {
			if (fault.isRestart()) {
				report.figure("tokens over " + fault + " at " + Check.at(records, fault.startNanos()),
						acrossRestart(records, fault));
			}
		}
	}

	private static int repeats(List<Acquisition> ofKey, CheckReport report) {
		Map<Long, Acquisition> seen = new HashMap<>();
		int repeated = 0;
		for (Acquisition acquisition : ofKey) {
			Acquisition earlier = seen.putIfAbsent(acquisition.token(), acquisition);
			if (earlier != null) {
				repeated++;
				report.violation(Violation.Kind.TOKEN_NOT_INCREASING, "token repeated by " + earlier + " and "
						+ acquisition);
			}
		}
		return repeated;
	}

	private static int backwards(RunRecords records, List<Acquisition> ofKey, CheckReport report) {
		List<Acquisition> byAcquired = new ArrayList<>(ofKey);
		byAcquired.sort(Comparator.comparingLong(Acquisition::acquiredNanos));
		List<Acquisition> byStart = new ArrayList<>(ofKey);
		byStart.sort(Comparator.comparingLong(Acquisition::startNanos));
		int backwards = 0;
		int next = 0;
		Acquisition largestBefore = null;
		for (Acquisition later : byStart) {
			while (next < byAcquired.size() && byAcquired.get(next).acquiredNanos() - later.startNanos() < 0) {
				Acquisition earlier = byAcquired.get(next++);
				if (largestBefore == null || earlier.token() > largestBefore.token()) {
					largestBefore = earlier;
				}
			}
			if (largestBefore != null && largestBefore.token() >= later.token()) {
				backwards++;
				report.violation(Violation.Kind.TOKEN_NOT_INCREASING, later + " started at "
						+ Check.at(records, later.startNanos()) + ", after " + largestBefore + " was acquired at "
						+ Check.at(records, largestBefore.acquiredNanos()) + ", yet got a token no larger");
			}
		}
		return backwards;
	}

	private static String acrossRestart(RunRecords records, FaultRecord restart) {
		long before = records.acquisitions()
			.stream()
			.filter((a) -> a.acquiredNanos() - restart.startNanos() < 0)
			.mapToLong(Acquisition::token)
			.max()
			.orElse(0);
		long after = records.acquisitions()
			.stream()
			.filter((a) -> a.startNanos() - restart.endNanos() > 0)
			.mapToLong(Acquisition::token)
			.min()
			.orElse(0);
		if (before == 0 || after == 0) {
			return "no acquisition on one side";
		}
		// Redis tokens are microseconds of its clock; ZooKeeper's are transaction ids, etcd's revisions.
		String unit = "zookeeper".equals(restart.target()) ? " zxids"
				: "etcd".equals(restart.target()) ? " revisions" : " us";
		return "last before " + before + ", first after " + after + " (" + ((after > before) ? "+" : "")
				+ (after - before) + unit + ")";
	}

}
