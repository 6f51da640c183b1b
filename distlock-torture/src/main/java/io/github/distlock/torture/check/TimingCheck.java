package io.github.distlock.torture.check;

/**
 * No call hangs: a wait ends, acquired or not, within the wait time plus one command timeout; a release within a
 * command timeout; and after the lock store comes back from a stall or a restart, locks are acquired again. Calls of
 * a worker that was itself paused or starved of CPU meanwhile are left out: their clock kept running while they could
 * not, or could only crawl. A call under way while a ZooKeeper server was stopped or down is timed from the server's
 * return: the ZooKeeper engine waits for its server, with no time limit of its own (see
 * {@link FaultRecord#holdsUpCalls}), which the figures show.
 */
final class TimingCheck implements Check {

	@Override
	public void check(RunRecords records, CheckReport report) {
		RunParameters parameters = records.parameters();
		long longestWait = 0;
		long longestTimeout = 0;
		long longestRelease = 0;
		HeldUp heldUp = new HeldUp(records);
		for (Acquisition acquisition : records.acquisitions()) {
			if (!records.stalledBetween(acquisition.worker(), acquisition.startNanos(), acquisition.acquiredNanos())) {
				long wait = heldUp.timed(acquisition.startNanos(), acquisition.acquiredNanos());
				longestWait = Math.max(longestWait, wait);
				if (wait > parameters.waitBoundNanos()) {
					report.violation(Violation.Kind.CALL_TOO_LONG, acquisition + " waited " + Check.millis(wait)
							+ heldUp.note(acquisition.startNanos(), acquisition.acquiredNanos()));
				}
			}
			if (acquisition.ending() != null && !records.stalledBetween(acquisition.worker(),
					acquisition.ending().endNanos(), acquisition.ending().returnedNanos())) {
				long release = heldUp.timed(acquisition.ending().endNanos(), acquisition.ending().returnedNanos());
				longestRelease = Math.max(longestRelease, release);
				if (release > parameters.releaseBoundNanos()) {
					report.violation(Violation.Kind.CALL_TOO_LONG, acquisition + " took " + Check.millis(release)
							+ " to release" + heldUp.note(acquisition.ending().endNanos(),
									acquisition.ending().returnedNanos()));
				}
			}
		}
		for (Timeout timeout : records.timeouts()) {
			if (!records.stalledBetween(timeout.worker(), timeout.startNanos(), timeout.endNanos())) {
				long wait = heldUp.timed(timeout.startNanos(), timeout.endNanos());
				longestTimeout = Math.max(longestTimeout, wait);
				if (wait > parameters.waitBoundNanos()) {
					report.violation(Violation.Kind.CALL_TOO_LONG, "call " + timeout.worker() + "/" + timeout.call()
							+ " on " + timeout.key() + " gave up only after " + Check.millis(wait)
							+ heldUp.note(timeout.startNanos(), timeout.endNanos()));
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
		if (records.faults().stream().anyMatch(FaultRecord::holdsUpCalls)) {
			report.figure("calls held up by the lock server", heldUp.count + " waits and releases under way while "
					+ "it was stopped or down, the longest " + Check.millis(heldUp.longestNanos)
					+ " in all (timed from its return)");
		}
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

	/** Times calls from the lock server's return when it held them up, and counts those it held up. */
	private static final class HeldUp {

		private final RunRecords records;

		private int count;

		private long longestNanos;

		HeldUp(RunRecords records) {
			this.records = records;
		}

		long timed(long fromNanos, long toNanos) {
			long from = this.records.heldUpUntil(fromNanos, toNanos);
			if (from != fromNanos) {
				this.count++;
				this.longestNanos = Math.max(this.longestNanos, toNanos - fromNanos);
			}
			return toNanos - from;
		}

		String note(long fromNanos, long toNanos) {
			long from = this.records.heldUpUntil(fromNanos, toNanos);
			return (from == fromNanos) ? ""
					: " counted from the lock server's return (" + Check.millis(toNanos - fromNanos) + " in all)";
		}

	}

}
