package io.github.distlock.torture.check;

/**
 * No call hangs: a wait ends, acquired or not, within the wait time plus one command timeout; a release within a
 * command timeout; and after Redis comes back from a stall or a restart, locks are acquired again. Calls of a
 * worker that was itself paused or starved of CPU meanwhile are left out: their clock kept running while they could
 * not, or could only crawl.
 */
final class TimingCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		RunParameters parameters = records.parameters();
		long longestWait = 0;
		long longestTimeout = 0;
		long longestRelease = 0;
		for (Acquisition acquisition : records.acquisitions()) {
			long wait = acquisition.acquiredNanos() - acquisition.startNanos();
			if (!records.stalledBetween(acquisition.worker(), acquisition.startNanos(), acquisition.acquiredNanos())) {
				longestWait = Math.max(longestWait, wait);
				if (wait > parameters.waitBoundNanos()) {
					report.violation(Violation.Kind.CALL_TOO_LONG, acquisition + " waited " + Check.millis(wait));
				}
			}
			if (acquisition.ending() != null && !records.stalledBetween(acquisition.worker(),
					acquisition.ending().endNanos(), acquisition.ending().returnedNanos())) {
				long release = acquisition.ending().returnedNanos() - acquisition.ending().endNanos();
				longestRelease = Math.max(longestRelease, release);
				if (release > parameters.releaseBoundNanos()) {
					report.violation(Violation.Kind.CALL_TOO_LONG, acquisition + " took " + Check.millis(release)
							+ " to release");
				}
			}
		}
		for (Timeout timeout : records.timeouts()) {
			long wait = timeout.endNanos() - timeout.startNanos();
			if (!records.stalledBetween(timeout.worker(), timeout.startNanos(), timeout.endNanos())) {
				longestTimeout = Math.max(longestTimeout, wait);
				if (wait > parameters.waitBoundNanos()) {
					report.violation(Violation.Kind.CALL_TOO_LONG, "call " + timeout.worker() + "/" + timeout.call()
							+ " on " + timeout.key() + " gave up only after " + Check.millis(wait));
				}
			}
		}
		long promised = parameters.waitTime().plus(parameters.commandTimeout()).toNanos();
		report.figure("longest wait", "acquired " + Check.millis(longestWait) + ", timed out "
				+ Check.millis(longestTimeout) + "; wait time + command timeout " + Check.millis(promised)
				+ ", exceeded by " + Check.millis(Math.max(0, Math.max(longestWait, longestTimeout) - promised))
				+ " (bound with scheduling allowance " + Check.millis(parameters.waitBoundNanos()) + ")");
		report.figure("longest release", Check.millis(longestRelease) + " (bound "
				+ Check.millis(parameters.releaseBoundNanos()) + ")");
		records.faults().stream().filter(FaultRecord::isStoreFault).forEach((fault) -> recovery(records, fault, report));
	}

	/** Some call must hold a lock again within the settling time after the lock store returns. */
	private static void recovery(RunRecords records, FaultRecord fault, CheckReport report) {
		long by = fault.endNanos() + records.parameters().settleNanos();
		if (by - records.parameters().loadEndNanos() > 0) {
			report.figure("recovery after " + fault + " at " + Check.at(records, fault.startNanos()),
					"not measured: the load ended first");
			return;
		}
		long first = records.acquisitions()
			.stream()
			.mapToLong(Acquisition::acquiredNanos)
			.filter((nanos) -> nanos - fault.endNanos() > 0)
			.min()
			.orElse(Long.MAX_VALUE);
		if (first == Long.MAX_VALUE || first - by > 0) {
			report.violation(Violation.Kind.NO_RECOVERY, "nothing acquired within "
					+ Check.millis(records.parameters().settleNanos()) + " after " + fault + " ended at "
					+ Check.at(records, fault.endNanos()));
		}
		else {
			report.figure("recovery after " + fault + " at " + Check.at(records, fault.startNanos()),
					"first acquisition " + Check.millis(first - fault.endNanos()) + " after it ended");
		}
	}

}
