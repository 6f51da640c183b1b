package io.github.distlock.torture.check;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The run's figures: how much locking happened, how it ended, what Redis saw and which faults struck.
 */
final class Totals implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		records.faults().forEach((fault) -> report.figure("fault at " + Check.at(records, fault.startNanos()),
				fault + " for " + Check.millis(fault.endNanos() - fault.startNanos())));
		report.figure("stalls the workers saw", records.stalls().size() + " of 100 ms or more, "
				+ records.stalls().stream().filter(records::isLong).count()
				+ " of two thirds of a lease or more, longest " + Check.millis(records.stalls()
					.stream()
					.mapToLong(Stall::lengthNanos)
					.max()
					.orElse(0)));
		report.figure("acquisitions", records.acquisitions().size() + " " + count(records, Acquisition::worker));
		report.figure("acquisitions by key", count(records, Acquisition::key));
		Map<String, Long> endings = records.acquisitions()
			.stream()
			.collect(Collectors.groupingBy((a) -> (a.ending() != null) ? a.ending().outcome() : "no end",
					TreeMap::new, Collectors.counting()));
		report.figure("calls ended", endings);
		long unavailable = records.timeouts().stream().filter(Timeout::unavailable).count();
		report.figure("timeouts", records.timeouts().size() + " (lock busy " + (records.timeouts().size()
				- unavailable) + ", store unreachable " + unavailable + ")");
		report.figure("refused on arrival", records.lostOnArrival().size()
				+ " (granted with the lease run out by the worker's clock; the section did not start)");
		report.figure("failures before holding", records.failures().size() + (records.failures().isEmpty() ? ""
				: " " + records.failures().stream().limit(5).toList()));
		report.figure("losses reported", records.lossReports().size() + " " + records.lossReports()
			.stream()
			.collect(Collectors.groupingBy(LossReport::reason, TreeMap::new, Collectors.counting())));
		long held = 0;
		long longest = 0;
		int ended = 0;
		for (Acquisition acquisition : records.acquisitions()) {
			if (acquisition.ending() != null) {
				long hold = acquisition.ending().endNanos() - acquisition.acquiredNanos();
				held += hold;
				longest = Math.max(longest, hold);
				ended++;
			}
		}
		report.figure("hold time", "total " + String.format("%.1f s", held / 1e9) + ", mean "
				+ Check.millis((ended > 0) ? held / ended : 0) + ", longest " + Check.millis(longest));
		report.figure("keyspace events", records.keyspace()
			.stream()
			.collect(Collectors.groupingBy(KeyspaceEvent::op, TreeMap::new, Collectors.counting())));
	}

	private static Map<String, Long> count(RunRecords records, Function<Acquisition, String> by) {
		return records.acquisitions()
			.stream()
			.collect(Collectors.groupingBy(by, TreeMap::new, Collectors.counting()));
	}

}
